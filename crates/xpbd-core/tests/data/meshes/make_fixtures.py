"""Regenerates the third-party-written fixtures of tests/mesh_readers.rs (run from this folder).

Needs `pip install meshio numpy gmsh vtk`. The hand-written fixtures (cube*.node/.ele, cube.mesh, cube.obj,
cube_v22.msh ...) are not made here. Every file written here holds the cube of
`cube.node`/`cube.ele` (8 vertices, 5 tetrahedra), except `box_*` (a Gmsh-meshed box) and `square_*`
(triangles only).
"""
import gmsh
import meshio
import numpy as np
from meshio.vtk import _vtk_42, _vtk_51

X = [0.0, 0.5]
Y = [0.0, 1.25]
Z = [-1.0, 0.75]
POINTS = np.array([[X[i & 1 ^ (i >> 1 & 1)], Y[i >> 1 & 1], Z[i >> 2]] for i in range(8)])
TETS = np.array([[0, 1, 3, 4], [1, 2, 3, 6], [1, 4, 5, 6], [3, 4, 6, 7], [1, 3, 4, 6]])
TRIS = np.array([[0, 1, 2], [0, 2, 3]])

cube = meshio.Mesh(POINTS, [("tetra", TETS)])
_vtk_42.write("cube_ascii42.vtk", cube, binary=False)
_vtk_42.write("cube_binary42.vtk", cube, binary=True)
_vtk_51.write("cube_ascii51.vtk", cube, binary=False)
_vtk_51.write("cube_binary51.vtk", cube, binary=True)
cube.write("cube_ascii.vtu", binary=False)
cube.write("cube_binary_meshio.vtu", binary=True, compression=None)
cube.write("cube_zlib.vtu", binary=True, compression="zlib")
_vtk_42.write("square_tri.vtk", meshio.Mesh(POINTS, [("triangle", TRIS)]), binary=False)


def vtk_cube():
    """The cube as a VTK grid with point and cell data (which the readers skip)."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk
    grid = vtk.vtkUnstructuredGrid()
    pts = vtk.vtkPoints()
    pts.SetData(numpy_to_vtk(POINTS))
    grid.SetPoints(pts)
    for t in TETS:
        grid.InsertNextCell(vtk.VTK_TETRA, 4, [int(i) for i in t])
    temp = numpy_to_vtk(np.arange(8.0))
    temp.SetName("temperature")
    grid.GetPointData().AddArray(temp)
    body = numpy_to_vtk(np.arange(5, dtype=np.int32))
    body.SetName("body")
    grid.GetCellData().AddArray(body)
    return vtk, grid


vtk, grid = vtk_cube()
for mode in ("ascii", "binary"):
    w = vtk.vtkXMLUnstructuredGridWriter()
    w.SetInputData(grid)
    w.SetFileName("cube_vtk_%s.vtu" % mode)
    w.SetCompressorTypeToNone()
    w.SetHeaderTypeToUInt64()
    (w.SetDataModeToAscii if mode == "ascii" else w.SetDataModeToBinary)()
    w.Write()
    for version in (42, 51):
        w = vtk.vtkUnstructuredGridWriter()
        w.SetInputData(grid)
        w.SetFileName("cube_vtk_%s%d.vtk" % (mode, version))
        (w.SetFileTypeToASCII if mode == "ascii" else w.SetFileTypeToBinary)()
        w.SetFileVersion(version)
        w.Write()


def gmsh_cube(sparse):
    """The cube as a discrete Gmsh model, with a point, a line and triangles to be skipped."""
    gmsh.model.add("cube")
    gmsh.model.addDiscreteEntity(0, 1)
    gmsh.model.addDiscreteEntity(1, 1)
    gmsh.model.addDiscreteEntity(2, 1)
    gmsh.model.addDiscreteEntity(3, 1)
    tags = [10 * (i + 1) + (i % 3) if sparse else i + 1 for i in range(8)]
    gmsh.model.mesh.addNodes(3, 1, tags, POINTS.flatten().tolist())
    t = lambda rows: [tags[i] for r in rows for i in r]
    gmsh.model.mesh.addElementsByType(1, 15, [1], [tags[0]])
    gmsh.model.mesh.addElementsByType(1, 1, [2], t([[0, 1]]))
    gmsh.model.mesh.addElementsByType(1, 2, [3, 4], t(TRIS))
    gmsh.model.mesh.addElementsByType(1, 4, [5, 6, 7, 8, 9], t(TETS))


gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.option.setNumber("Mesh.SaveAll", 1)
for sparse in (False, True):
    gmsh.clear()
    gmsh_cube(sparse)
    for version in (2.2, 4.1):
        for binary in (0, 1):
            gmsh.option.setNumber("Mesh.MshFileVersion", version)
            gmsh.option.setNumber("Mesh.Binary", binary)
            name = "cube%s_v%s_%s.msh" % ("_sparse" if sparse else "", str(version).replace(".", ""),
                                          "bin" if binary else "ascii")
            gmsh.write(name)

# A box meshed by Gmsh itself (points, lines, triangles and tetrahedra, entities and physical groups).
gmsh.clear()
gmsh.model.add("box")
gmsh.model.occ.addBox(0, 0, 0, 1, 0.5, 0.25)
gmsh.model.occ.synchronize()
gmsh.model.addPhysicalGroup(3, [1], name="solid")
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.3)
gmsh.model.mesh.generate(3)
gmsh.option.setNumber("Mesh.SaveAll", 0)
for version in (2.2, 4.1):
    for binary in (0, 1):
        gmsh.option.setNumber("Mesh.MshFileVersion", version)
        gmsh.option.setNumber("Mesh.Binary", binary)
        gmsh.write("box_v%s_%s.msh" % (str(version).replace(".", ""), "bin" if binary else "ascii"))

# Triangles only (a meshed square).
gmsh.clear()
gmsh.model.add("square")
gmsh.model.occ.addRectangle(0, 0, 0, 1, 1)
gmsh.model.occ.synchronize()
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.5)
gmsh.model.mesh.generate(2)
gmsh.option.setNumber("Mesh.SaveAll", 1)
gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
gmsh.option.setNumber("Mesh.Binary", 0)
gmsh.write("square_tri_v41.msh")
gmsh.finalize()
