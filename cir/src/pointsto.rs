//! pointsto (placeholder; being written).
