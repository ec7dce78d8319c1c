//! Runs the command as a child process under limits: CPU time (`RLIMIT_CPU`: the
//! kernel ends the child with SIGXCPU; CPU time, unlike wall-clock time, does not
//! depend on how busy the machine is), a wall-clock timeout for a child that waits
//! forever without using the CPU (the harness kills its process group), an
//! address-space limit (`RLIMIT_AS`, so an allocation past it fails inside the child
//! as it would under `ulimit -v`), no core files, and a cap on the size of files it
//! writes. Its output is drained concurrently (a full pipe must not stall it) and
//! kept up to a cap.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The limits of one child.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// CPU time (all threads), rounded up to whole seconds.
    pub cpu: Duration,
    /// Wall-clock time; the harness kills the child past it.
    pub wall: Duration,
    /// `RLIMIT_AS` in bytes; `None` leaves the harness's own limit.
    pub memory: Option<u64>,
}

/// How a child ended and what it printed.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did (SIGKILL from the timeout included).
    pub signal: Option<i32>,
    /// The harness killed it at the wall-clock limit.
    pub timed_out: bool,
    /// The kernel ended it at the CPU-time limit (SIGXCPU).
    pub out_of_cpu: bool,
    /// Standard output (up to [`OUTPUT_CAP`] bytes).
    pub stdout: Vec<u8>,
    /// Standard error (up to [`OUTPUT_CAP`] bytes).
    pub stderr: Vec<u8>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// The most bytes of each stream kept (the rest is read and dropped).
pub const OUTPUT_CAP: usize = 8 << 20;

/// The largest file the child may write (`RLIMIT_FSIZE`): `--out` of a huge array
/// fails with an error instead of filling the disk.
const FILE_SIZE_LIMIT: u64 = 1 << 30;

fn drain(mut stream: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 1 << 16];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = OUTPUT_CAP.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        kept
    })
}

/// Sets one resource limit (soft and hard) in the child.
fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    set_limit_pair(resource, value, value)
}

/// Sets a soft and a hard resource limit in the child.
fn set_limit_pair(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let limit = libc::rlimit { rlim_cur: soft as libc::rlim_t, rlim_max: hard as libc::rlim_t };
    // SAFETY: setrlimit reads the struct we pass and touches no memory of ours; it is
    // async-signal-safe, so it may run between fork and exec.
    if unsafe { libc::setrlimit(resource, &limit) } == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Sends SIGKILL to the process group led by the child `pid` (it was started with
/// `process_group(0)`, so the group's id is its pid).
fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill only sends a signal; a group that is already gone gives ESRCH.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// Runs `program args` in `dir` with `stdin` as standard input, under `limits`.
pub fn run(program: &Path, args: &[String], dir: &Path, stdin: &[u8], limits: Limits) -> std::io::Result<Finished> {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so the timeout kills whatever it started too (a
        // grandchild holding the pipes open would keep the harness waiting).
        .process_group(0);
    let memory = limits.memory;
    let cpu_seconds = limits.cpu.as_secs_f64().ceil().max(1.0) as u64;
    // SAFETY: the closure runs in the forked child before exec; it only calls
    // setrlimit (async-signal-safe) and builds an io::Error from errno (no allocation).
    unsafe {
        command.pre_exec(move || {
            set_limit(libc::RLIMIT_CORE, 0)?;
            set_limit(libc::RLIMIT_FSIZE, FILE_SIZE_LIMIT)?;
            // Soft limit: SIGXCPU; the hard limit a second later is SIGKILL, for a
            // child that would catch the first.
            set_limit_pair(libc::RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)?;
            if let Some(bytes) = memory {
                set_limit(libc::RLIMIT_AS, bytes)?;
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = command.spawn()?;
    let stdout = drain(child.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.stderr.take().expect("stderr is piped"));
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_vec();
    // A child that does not read its input closes the pipe: the write error is fine.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut timed_out = false;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > limits.wall {
            timed_out = true;
            kill_group(child.id());
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let _ = writer.join();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let out_of_cpu = status.signal() == Some(libc::SIGXCPU);
    Ok(Finished { code: status.code(), signal: status.signal(), timed_out, out_of_cpu, stdout, stderr, elapsed })
}
