//! Memory-mapping a file for reading (the safetensors reader's one
//! `unsafe` call).

use std::fs::File;

use memmap2::Mmap;

/// The contents of `file`, mapped read-only into memory.
pub(crate) fn map_read_only(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the mapping is read-only and private to this process; memmap2's
    // one remaining condition is that no one truncates or rewrites the file
    // while it is mapped, which this crate never does and which the public
    // docs of `io::safetensors::SafeTensorsFile::open` ask of the caller (as
    // every memory-mapping reader does).
    unsafe { Mmap::map(file) }
}
