//! Test utilities for Boolean programs (placeholder).
