//! Property tests (proptest) over random inputs: colorings are valid and clusterings cover every
//! element once on random meshes; the generators give positively oriented, non-degenerate elements
//! that fill their shape; what `write_vtu` writes, `read_mesh` reads back bit for bit.
//! Case counts stay small so the suite stays fast.

use proptest::prelude::*;
use xpbd_core::graph::{check_clustered, check_colored, Partitions};
use xpbd_core::mesh::generators::{box_mesh, grid2d_mesh, sphere_mesh, torus_mesh, GridPattern};
use xpbd_core::mesh::io::{read_mesh, write_vtu, PointData};
use xpbd_core::mesh::{signed_tet_volume, Mesh, TetMesh, Vec3};

/// Random connectivity: `n` vertices, elements of `N` distinct vertices each.
fn elements<const N: usize>() -> impl Strategy<Value = (usize, Vec<[u32; N]>)> {
    (N..40usize).prop_flat_map(|n| {
        let element = proptest::sample::subsequence((0..n as u32).collect::<Vec<_>>(), N).prop_shuffle().prop_map(|v| <[u32; N]>::try_from(v).unwrap());
        (Just(n), proptest::collection::vec(element, 1..120))
    })
}

/// The element coloring and the cluster coloring are valid, and every element lies in exactly one
/// cluster of 1..=k_s elements.
fn check_partitions<const N: usize>(n: usize, elements: &[[u32; N]], k_s: usize) {
    let p = Partitions::compute(elements, n, k_s);
    check_colored(elements, n, &p.colored).unwrap();
    check_clustered(elements, n, &p.clustering, &p.cluster_colors).unwrap();
    assert!(p.colored.colors() >= p.max_valence);
    let mut seen = vec![0u32; elements.len()];
    for r in 0..p.clustering.clusters() {
        let m = p.clustering.members_of(r);
        assert!(!m.is_empty() && m.len() <= k_s, "cluster {r} has {} members (k_s = {k_s})", m.len());
        m.iter().for_each(|&e| seen[e as usize] += 1);
    }
    assert!(seen.iter().all(|&c| c == 1), "an element is in {:?} clusters", seen.iter().find(|&&c| c != 1));
}

fn check_tets(m: &TetMesh, expected_volume: Option<f64>) {
    let vols: Vec<f64> = m.tets.iter().map(|t| t.map(|i| m.vertices[i as usize])).map(|[a, b, c, d]| signed_tet_volume(&a, &b, &c, &d)).collect();
    let mean = vols.iter().sum::<f64>() / vols.len() as f64;
    assert!(!vols.is_empty());
    assert!(vols.iter().all(|&v| v > 1e-6 * mean), "min volume {} of mean {mean}", vols.iter().cloned().fold(f64::INFINITY, f64::min));
    if let Some(total) = expected_volume {
        let sum: f64 = vols.iter().sum();
        assert!((sum - total).abs() <= 1e-9 * total, "volume {sum} != {total}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn tet_colorings_are_valid_and_clusters_cover((n, tets) in elements::<4>(), k_s in 1usize..8) {
        check_partitions(n, &tets, k_s);
    }

    #[test]
    fn triangle_colorings_are_valid_and_clusters_cover((n, tris) in elements::<3>(), k_s in 1usize..8) {
        check_partitions(n, &tris, k_s);
    }

    #[test]
    fn box_tets_are_positive_and_fill_the_box(size in proptest::array::uniform3(0.01f64..20.0), cells in proptest::array::uniform3(1usize..7), split in prop_oneof![Just(5u8), Just(6u8)]) {
        let m = box_mesh(size, cells, split).unwrap();
        prop_assert_eq!(m.tets.len(), cells.iter().product::<usize>() * split as usize);
        check_tets(&m, Some(size.iter().product()));
    }

    #[test]
    fn sphere_and_torus_tets_are_positive(radius in 0.01f64..10.0, ratio in 0.05f64..0.95, cells in 2usize..12, split in prop_oneof![Just(5u8), Just(6u8)]) {
        let s = sphere_mesh(radius, cells, split).unwrap();
        check_tets(&s, None);
        prop_assert!(s.vertices.iter().all(|p| p.norm() <= radius * (1.0 + 2.0 * 3f64.sqrt() / cells as f64)));
        if let Ok(t) = torus_mesh(radius, radius * ratio, cells, split) {
            check_tets(&t, None);
        }
    }

    #[test]
    fn grid2d_triangles_face_plus_z_and_fill_the_rectangle(size in proptest::array::uniform2(0.01f64..20.0), cells in proptest::array::uniform2(1usize..20)) {
        let m = grid2d_mesh(size, cells, GridPattern::Alternating).unwrap();
        let areas: Vec<f64> = m.tris.iter().map(|t| t.map(|i| m.vertices[i as usize])).map(|[a, b, c]| 0.5 * (b - a).cross(&(c - a)).z).collect();
        prop_assert!(areas.iter().all(|&a| a > 0.0));
        let total: f64 = areas.iter().sum();
        prop_assert!((total - size[0] * size[1]).abs() <= 1e-9 * size[0] * size[1]);
    }

    #[test]
    fn vtu_round_trip_is_bit_exact(
        points in proptest::collection::vec(proptest::array::uniform3(-1e6f64..1e6), 4..40),
        picks in proptest::collection::vec(proptest::array::uniform4(any::<u32>()), 0..30),
        tri_picks in proptest::collection::vec(proptest::array::uniform3(any::<u32>()), 0..30),
    ) {
        prop_assume!(!picks.is_empty() || !tri_picks.is_empty());
        let pts: Vec<Vec3> = points.iter().map(|p| Vec3::new(p[0], p[1], p[2])).collect();
        let n = pts.len() as u32;
        let tets: Vec<[u32; 4]> = picks.iter().map(|t| t.map(|i| i % n)).collect();
        let tris: Vec<[u32; 3]> = tri_picks.iter().map(|t| t.map(|i| i % n)).collect();
        let ids: Vec<i32> = (0..n as i32).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.vtu");
        write_vtu(&path, &pts, &tets, &tris, &[("body", PointData::Int(&ids)), ("velocity", PointData::Vector(&pts))]).unwrap();
        // A file with tetrahedra reads back as its tetrahedra (triangles are dropped), else as triangles.
        match read_mesh(&path).unwrap() {
            Mesh::Tet(m) => {
                prop_assert!(!tets.is_empty());
                prop_assert_eq!(m.tets, tets);
                prop_assert!(m.vertices.iter().zip(&pts).all(|(a, b)| a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits())));
                prop_assert_eq!(m.vertices.len(), pts.len());
            }
            Mesh::Tri(m) => {
                prop_assert!(tets.is_empty());
                prop_assert_eq!(m.tris, tris);
                prop_assert_eq!(m.vertices, pts);
            }
        }
    }
}
