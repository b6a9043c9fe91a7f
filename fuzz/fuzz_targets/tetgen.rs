#![no_main]
//! Fuzzes the TetGen reader: the input is the `.node` text, a NUL byte, then the `.ele` text (an
//! input without a NUL is a `.node` file with an empty `.ele`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (node, ele) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    if let Ok(m) = xpbd_core::mesh::io::parse_tetgen(std::path::Path::new("fuzz"), node, ele) {
        xpbd_fuzz::check(&xpbd_core::mesh::Mesh::Tet(m));
    }
});
