//! The word lists fact alignment reads: number words, units, months, negation cues, words
//! that qualify a number, words that tell a person's name from a place's, a body's, a people's
//! or an office's, and the closed sets whose members exclude each other.
//!
//! Files: `figures` (numbers, units, months, time), `names` (titles, offices, kinds of names),
//! `sets` (the closed sets), `cues` (negation, belief, function words, relations that read both
//! ways between names).

mod cues;
mod figures;
mod names;
mod sets;

pub use cues::*;
pub use figures::*;
pub use names::*;
pub use sets::*;
