//! A failing rank must end the MPI job non-zero, never hang it (run by `mpirun`; the
//! CI script checks the exit code and that the job ends well within its timeout).
//!
//! `FERRAX_FAULT=panic`: the last rank panics before the collective the others wait
//! at (the panic hook aborts the job). `FERRAX_FAULT=mismatch`: the last rank reaches
//! a different collective, which every rank reports (naming both) and then fails.
//! `FERRAX_FAULT=absent`: the last rank sleeps past the others' timeout, which
//! aborts the job naming the waiting rank. `FERRAX_FAULT=exit`: the last rank returns
//! from `main` before the collective (MPI cannot say which rank is missing: the
//! waiting ranks time out and name themselves). `FERRAX_FAULT=shape`: the last rank's
//! operand has another shape, which every rank reports naming both.

use ferrax::dist::MpiWorker;
use ferrax::{Array, Communicator, Tensor, lax};
use std::time::Duration;

fn main() {
    let fault = std::env::var("FERRAX_FAULT").unwrap_or_else(|_| "panic".into());
    let worker = MpiWorker::init(Duration::from_secs(3)).expect("MPI initialises once");
    let last = worker.rank() + 1 == worker.size();
    let x = if fault == "shape" && last { Array::from(vec![1.0f64, 2.0, 3.0]) } else { Array::from(vec![1.0f64, 2.0]) };
    match fault.as_str() {
        "panic" if last => panic!("rank {} fails before the collective", worker.rank()),
        "absent" if last => std::thread::sleep(Duration::from_secs(30)),
        "exit" if last => return,
        _ => {}
    }
    let use_max = fault == "mismatch" && last;
    let f = move |x: Tensor| if use_max { lax::pmax(&x, &["i"]) } else { lax::psum(&x, &["i"]) };
    match ferrax::pmap(f, "i").call_on::<_, Tensor>(&worker, &x) {
        Ok(_) => println!("mpi_faults: rank {} finished", worker.rank()),
        Err(e) => worker.fail(&e.to_string()),
    }
}
