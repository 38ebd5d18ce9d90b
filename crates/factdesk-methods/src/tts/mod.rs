//! Truthful Text Summarization, from "Incentive-Aligned Multi-Source LLM Summaries" (see
//! `score`): sources are scored by how their stances on claims they could not shape agree with
//! their peers'. So far only the scoring: the leave-one-out drafts, claim decomposition, stance
//! extraction and the filtered re-summary are not built yet.

pub mod score;
