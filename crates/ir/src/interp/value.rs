//! Runtime values of the interpreter, and the ledger of live bytes behind the budget.
//!
//! Every buffer the interpreter creates carries a [`Ticket`] for its bytes; dropping
//! the buffer's last reference drops the ticket and gives the bytes back, so the
//! ledger always holds the bytes of exactly the buffers that are alive. Values are
//! reference-counted: passing a value to a callee, a branch or a loop body, or
//! returning it, shares the buffer instead of copying it.

use ferrax_array::Array;
use smallvec::SmallVec;
use std::cell::Cell;
use std::rc::Rc;

/// The bytes of all live buffers of one run.
#[derive(Clone, Debug, Default)]
pub(super) struct Ledger(Rc<Cell<u64>>);

impl Ledger {
    /// Bytes live now.
    pub(super) fn live(&self) -> u64 {
        self.0.get()
    }

    /// Records `bytes` as live until the ticket is dropped.
    pub(super) fn ticket(&self, bytes: u64) -> Ticket {
        self.0.set(self.0.get().saturating_add(bytes));
        Ticket { bytes, live: Rc::clone(&self.0) }
    }

    /// A buffer holding `array`, counted as live while it exists.
    pub(super) fn buf(&self, array: Array) -> Buf {
        let ticket = self.ticket(array.byte_len());
        Buf { array, _ticket: ticket }
    }
}

/// Bytes counted as live; given back when dropped.
#[derive(Debug)]
pub(super) struct Ticket {
    bytes: u64,
    live: Rc<Cell<u64>>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.live.set(self.live.get().saturating_sub(self.bytes));
    }
}

/// An array created by the run, with the ticket for its bytes.
#[derive(Debug)]
pub(super) struct Buf {
    array: Array,
    _ticket: Ticket,
}

impl Buf {
    /// A buffer whose bytes were reserved beforehand with `ticket`.
    pub(super) fn with_ticket(array: Array, ticket: Ticket) -> Buf {
        Buf { array, _ticket: ticket }
    }
}

/// A value during a run: an argument borrowed from the caller (counted as live for the
/// whole run) or a shared buffer created by the run.
#[derive(Clone, Debug)]
pub(super) enum Val<'a> {
    /// A caller's argument.
    Arg(&'a Array),
    /// A buffer of the run.
    Buf(Rc<Buf>),
}

/// The values an equation or a call produces (most produce one or two).
pub(super) type Vals<'a> = SmallVec<[Val<'a>; 2]>;

impl<'a> Val<'a> {
    /// A new value owning `buf`.
    pub(super) fn new(buf: Buf) -> Val<'a> {
        Val::Buf(Rc::new(buf))
    }

    /// The array.
    pub(super) fn array(&self) -> &Array {
        match self {
            Val::Arg(a) => a,
            Val::Buf(b) => &b.array,
        }
    }

    /// The array by value: moved out when this is the last reference, copied otherwise.
    pub(super) fn into_array(self) -> Array {
        match self {
            Val::Arg(a) => a.clone(),
            Val::Buf(b) => match Rc::try_unwrap(b) {
                Ok(buf) => buf.array,
                Err(shared) => shared.array.clone(),
            },
        }
    }
}
