# The 56k-tet beam of the CPU benchmarks (docs/benchmarks.md: 5 × 1.5 × 1.5 m, 50 × 15 × 15 cells split into
# 5 tets, neohookean_block, clamped at x = 0), shared by benches/peers/run.sh and benches/pair_builds.sh.
# Sourced; defines
#   beam56k_scene NAME ORDERING SUBSTEPS FRAMES ITERATIONS [PRECISION] > FILE: the scene (PRECISION f64 or f32,
#   default f64), the probe on the tip vertex (50, 7, 7).
beam56k_scene() {
    cat <<EOF
name = "$1"
[simulation]
dt = 0.0166667
frames = $4
substeps = $3
iterations = $5
gravity = [0.0, -9.81, 0.0]
on_failure = "continue"
[solver]
kind = "xpbd"
ordering = "$2"
precision = "${6:-f64}"
[contact]
self = false
bodies = false
[[body]]
name = "beam"
mesh = { generator = "box", size = [5.0, 1.5, 1.5], cells = [50, 15, 15], split = 5 }
material = { model = "neohookean_block", youngs = 2.5e5, poisson = 0.25, density = 1000.0 }
pin = [{ box = { min = [-0.01, -10.0, -10.0], max = [0.01, 10.0, 10.0] } }]
[[probe]]
name = "tip"
body = "beam"
point = [5.0, 0.7, 0.7]
[output]
formats = ["none"]
EOF
}
