//! PNG encoding of the RGB pictures and plots (`xpbd render`, `xpbd report`).

use xpbd_core::{Error, Result};

/// PNG bytes of an 8-bit RGB image, rows from the top, compressed as well as the encoder can.
pub fn rgb_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let err = |e: png::EncodingError| Error::invalid(format!("encoding PNG: {e}"));
    enc.write_header().map_err(err)?.write_image_data(rgb).map_err(err)?;
    Ok(out)
}
