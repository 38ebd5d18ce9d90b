//! Every migration this build knows, in order, and the schema version they end at.

use super::Migration;

/// Every migration this binary knows, in order. Append only.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("../../../../migrations/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "model_calls",
        sql: include_str!("../../../../migrations/0002_model_calls.sql"),
    },
    Migration {
        version: 3,
        name: "fetches",
        sql: include_str!("../../../../migrations/0003_fetches.sql"),
    },
    Migration {
        version: 4,
        name: "checks",
        sql: include_str!("../../../../migrations/0004_checks.sql"),
    },
    Migration {
        version: 5,
        name: "pending_index",
        sql: include_str!("../../../../migrations/0005_pending_index.sql"),
    },
    Migration {
        version: 6,
        name: "run_identity",
        sql: include_str!("../../../../migrations/0006_run_identity.sql"),
    },
    Migration {
        version: 7,
        name: "outcomes",
        sql: include_str!("../../../../migrations/0007_outcomes.sql"),
    },
    Migration {
        version: 8,
        name: "token_purposes",
        sql: include_str!("../../../../migrations/0008_token_purposes.sql"),
    },
    Migration {
        version: 9,
        name: "subject_leases",
        sql: include_str!("../../../../migrations/0009_subject_leases.sql"),
    },
    Migration {
        version: 10,
        name: "checks_by_text",
        sql: include_str!("../../../../migrations/0010_checks_by_text.sql"),
    },
    Migration {
        version: 11,
        name: "edit_decisions",
        sql: include_str!("../../../../migrations/0011_edit_decisions.sql"),
    },
    Migration {
        version: 12,
        name: "structured_summaries",
        sql: include_str!("../../../../migrations/0012_structured_summaries.sql"),
    },
    Migration {
        version: 13,
        name: "claim_embeddings",
        sql: include_str!("../../../../migrations/0013_claim_embeddings.sql"),
    },
    Migration {
        version: 14,
        name: "pdf_pages",
        sql: include_str!("../../../../migrations/0014_pdf_pages.sql"),
    },
    Migration {
        version: 15,
        name: "claim_dates",
        sql: include_str!("../../../../migrations/0015_claim_dates.sql"),
    },
    Migration {
        version: 16,
        name: "migration_checksums",
        sql: include_str!("../../../../migrations/0016_migration_checksums.sql"),
    },
    Migration {
        version: 17,
        name: "languages",
        sql: include_str!("../../../../migrations/0017_languages.sql"),
    },
    Migration {
        version: 18,
        name: "one_run_identity",
        sql: include_str!("../../../../migrations/0018_one_run_identity.sql"),
    },
    Migration {
        version: 19,
        name: "outcome_reviews",
        sql: include_str!("../../../../migrations/0019_outcome_reviews.sql"),
    },
    Migration {
        version: 20,
        name: "sentence_languages",
        sql: include_str!("../../../../migrations/0020_sentence_languages.sql"),
    },
    Migration {
        version: 21,
        name: "unread_sentence_languages",
        sql: include_str!("../../../../migrations/0021_unread_sentence_languages.sql"),
    },
    Migration {
        version: 22,
        name: "documents_by_language",
        sql: include_str!("../../../../migrations/0022_documents_by_language.sql"),
    },
];

/// The schema version this binary writes.
pub fn latest_version(migrations: &[Migration]) -> i64 {
    migrations.last().map_or(0, |migration| migration.version)
}
