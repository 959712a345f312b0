//! BDD-based interprocedural reachability for Boolean programs (placeholder).
