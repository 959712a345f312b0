//! wp (placeholder; being written).
