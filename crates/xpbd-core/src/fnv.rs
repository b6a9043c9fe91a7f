//! FNV-1a, 64 bit: a small hash that stays the same across toolchains and machines, for names and
//! fingerprints stored in files (checkpoints, batch run folders, the kernel build of the validation cache, the
//! NVRTC cache).

pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_reference_values() {
        // From the FNV reference test suite.
        assert_eq!(super::fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(super::fnv1a(b"foobar"), 0x85944171f73967e8);
    }
}
