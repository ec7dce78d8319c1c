//! The fusion pass: partitions a Func into kernels (`[kind="fusion"]` Funcs) and an
//! execution schedule that the JIT lowers. Empty until the fusion issue lands.
