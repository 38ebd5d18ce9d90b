//! The resumable batch runner that every method's collection run goes through: the subjects of
//! a collection → run one → store one, a few at a time.
//!
//! A run is found by its identity (the method's configuration and models, see
//! [`crate::verify::config`]): the newest unfinished run over the same collection with the same
//! identity is continued, and the subjects it already stored a result for are left out; with
//! `skip_done`, so are the subjects any run with that identity stored a result for. Each
//! result is stored by the method's `run_one` as it comes (one transaction each), so a killed
//! run loses at most the subjects in flight. A subject whose `run_one` fails is reported and
//! left undone: the run then ends `failed` and the next call retries just those. Cancelling
//! stops starting new subjects; those in flight finish. Two processes may run the same run at
//! once: a batch takes a lease on each subject before working on it (`subject_leases`), so the
//! two work on disjoint subjects; each leaves out what the other has stored (counted as already
//! done) or holds (counted as elsewhere), never as a failure. A lease of a process that died is
//! taken over at once; one of a process that hangs, after an hour.
//!
//! Files, one responsibility each:
//! - `run.rs`: the batch itself (the run found or made, the subjects left run a few at a
//!   time, the tally and the run's status), with its tests over claims.
//! - `leases.rs`: the leases on subjects that keep two processes apart.
//! - `passage_tests.rs`: a toy revising method run over passages, the way a real one is added.

mod leases;
#[cfg(test)]
mod passage_tests;
mod run;

use factdesk_model::{Claim, Passage, RunId, SubjectId};
use serde::Serialize;

/// Which subjects of a collection a batch runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSubjects {
    Claims,
    Passages,
}

/// One subject of a batch: a claim or a passage of the collection.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Claim(Claim),
    Passage(Passage),
}

impl Subject {
    pub fn id(&self) -> SubjectId {
        match self {
            Subject::Claim(claim) => SubjectId::Claim(claim.id),
            Subject::Passage(passage) => SubjectId::Passage(passage.id),
        }
    }

    pub fn text(&self) -> &str {
        match self {
            Subject::Claim(claim) => &claim.text,
            Subject::Passage(passage) => &passage.text,
        }
    }
}

/// What a batch runs over and as what.
#[derive(Debug, Clone)]
pub struct BatchSpec<'a> {
    /// The collection whose claims or passages are the subjects.
    pub collection: &'a str,
    pub subjects: BatchSubjects,
    /// The run's identity (its method, configuration and models), stored as its parameters.
    pub identity: &'a crate::identity::RunIdentity,
    /// Start a new run even if an unfinished one with this identity exists.
    pub restart: bool,
    /// Leave out subjects that any run with this identity already did.
    pub skip_done: bool,
    /// Subjects run at once.
    pub concurrency: usize,
}

/// What a batch did; `T` is what one subject's run gives (e.g. a verdict), tallied.
#[derive(Debug, Clone)]
pub struct BatchOutcome<T> {
    pub run_id: RunId,
    /// True when an unfinished run was continued.
    pub resumed: bool,
    pub subjects: usize,
    /// Done in earlier attempts of this run, or meanwhile by another process running it (with
    /// `skip_done`, also by earlier runs with the same identity), and so left out.
    pub already_done: usize,
    /// Being worked on by another process running this run when this batch reached them
    /// (their leases were held), and so left to it.
    pub elsewhere: usize,
    pub done: usize,
    pub failed: usize,
    pub cancelled: bool,
    pub tally: Vec<(T, usize)>,
    pub failures: Vec<SubjectFailure>,
}

/// A subject whose run failed, and why.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SubjectFailure {
    pub subject: SubjectId,
    /// The claim's or passage's text.
    pub text: String,
    pub message: String,
}
