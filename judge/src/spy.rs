//! The judge's model of lesson 2's payments server (`PaymentsServer`), with
//! and without idempotency, recording every call. Checks play scripts
//! against it to know what the implementation must answer, and replay a
//! client's recorded calls through it to know what the ledger must hold.
//! It is [`protocol::lesson::Server`], the same server the harness runs
//! exercise 2's client against.

pub use protocol::lesson::Server as SpyServer;
