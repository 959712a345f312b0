//! smt (placeholder; being written).
