//! Predicates (placeholder; being written).
