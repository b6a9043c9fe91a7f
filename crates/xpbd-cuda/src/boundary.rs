//! What both device paths' soft-attachment kernel (`soft_attachments` of `kernels/boundary.cu`, one thread per
//! attachment) requires of the model.

use xpbd_core::model::Model;

use crate::error::{CudaError, Result};

/// `Err` names a vertex with two soft attachments: the GPU pass would update it twice at once.
pub fn soft_attachments_distinct(model: &Model) -> Result<()> {
    let mut soft: Vec<u32> = model.attachments.iter().filter(|a| a.compliance > 0.0).map(|a| a.vertex).collect();
    soft.sort_unstable();
    match soft.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(CudaError::Unsupported(format!("vertex {} has two soft attachments: the GPU pass updates attachments in parallel", w[0]))),
        None => Ok(()),
    }
}
