//! Vertex → element incidence in CSR form: the elements that touch each vertex.

/// `elements_of(v)` lists the elements containing vertex `v`, in increasing element order.
#[derive(Clone, Debug)]
pub struct Incidence {
    start: Vec<usize>,
    elements: Vec<u32>,
}

impl Incidence {
    pub fn new<const N: usize>(elements: &[[u32; N]], vertex_count: usize) -> Self {
        let mut start = vec![0usize; vertex_count + 1];
        for &v in elements.iter().flatten() {
            start[v as usize + 1] += 1;
        }
        for i in 0..vertex_count {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[vertex_count]];
        for (e, el) in elements.iter().enumerate() {
            for &v in el {
                list[fill[v as usize]] = e as u32;
                fill[v as usize] += 1;
            }
        }
        Incidence { start, elements: list }
    }

    #[inline]
    pub fn elements_of(&self, v: u32) -> &[u32] {
        &self.elements[self.start[v as usize]..self.start[v as usize + 1]]
    }

    /// The largest number of elements sharing one vertex (the valence): a lower bound on the colors.
    pub fn max_valence(&self) -> usize {
        self.start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }
}
