#![no_main]
//! Fuzzes the TetGen reader: the input is the `.node` text, a NUL byte, then the `.ele` text (an
//! input without a NUL is a `.node` file with an empty `.ele`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = xpbd_fuzz::tetgen(data);
});
