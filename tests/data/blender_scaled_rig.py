# blender_scaled_rig.py - writes tests/data/blender_scaled_rig.txt: a small rig
# with scaled, sheared and mirrored bones, posed and skinned by Blender's own
# Armature modifier, with Preserve Volume (its DQS with scale) and without (LBS).
#
#   blender -b --python tests/data/blender_scaled_rig.py -- tests/data/blender_scaled_rig.txt
#
# Debian's Blender 3.4.1 wrote the committed file; tests/test_realdata.c skins the
# same rig with fk_skin_dqs() and fk_skin_lbs() and compares. Matrices are
# written row by row, 3x4 (the fourth row is 0 0 0 1), in the armature's space.
import sys
import bpy
from mathutils import Quaternion, Vector

out_path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Arm")
arm = bpy.data.objects.new("Arm", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode='EDIT')
# A chain of three bones along y, rolled and bent so that no bone is aligned with
# the armature's axes, and a side bone.
specs = [("root", (0, 0, 0), (0, 1, 0), None, 0.0),
         ("mid", (0, 1, 0), (0.3, 2, 0.2), "root", 0.4),
         ("tip", (0.3, 2, 0.2), (0.2, 3.1, 0.6), "mid", -0.7),
         ("side", (0, 1, 0), (1, 1.3, 0), "root", 1.2)]
for name, head, tail, parent, roll in specs:
    b = arm_data.edit_bones.new(name)
    b.head = head; b.tail = tail; b.roll = roll
    if parent: b.parent = arm_data.edit_bones[parent]
bpy.ops.object.mode_set(mode='OBJECT')
names = [s[0] for s in specs]

# A grid of points around the chain, each weighted to two bones.
verts, groups = [], []
for i in range(5):
    for j in range(13):
        for k in range(2):
            v = (0.3 * i - 0.6, 0.25 * j, 0.3 * k - 0.15 + 0.05 * i)
            verts.append(v)
            y = v[1]
            if y < 1.0:
                a, b, t = "root", ("side" if v[0] > 0.2 else "mid"), max(0.0, (y - 0.6) / 0.4)
            elif y < 2.0:
                a, b, t = "mid", "tip", max(0.0, (y - 1.6) / 0.4)
            else:
                a, b, t = "tip", "mid", 0.15
            groups.append(((a, 1.0 - t), (b, t)))
me = bpy.data.meshes.new("M"); me.from_pydata(verts, [], []); me.update()
ob = bpy.data.objects.new("M", me); bpy.context.scene.collection.objects.link(ob)
vg = {n: ob.vertex_groups.new(name=n) for n in names}
for index, pair in enumerate(groups):
    for name, w in pair:
        if w > 0: vg[name].add([index], w, 'ADD')
mod = ob.modifiers.new("A", 'ARMATURE'); mod.object = arm

# The pose: rotations everywhere; scale along the bone (squash and stretch),
# across it, non-uniform, and one bone mirrored.
pose = {"root": (Vector((1, 0, 0)), 0.3, (1.0, 1.3, 1.0)),
        "mid": (Vector((0.2, 0.1, 1)), 1.1, (0.6, 1.8, 1.2)),
        "tip": (Vector((1, 0.5, 0)), -0.6, (1.4, 0.5, 0.9)),
        "side": (Vector((0, 1, 0.3)), 0.8, (-1.0, 1.0, 1.0))}
for name, (axis, angle, scale) in pose.items():
    pb = arm.pose.bones[name]
    pb.rotation_mode = 'QUATERNION'
    pb.rotation_quaternion = Quaternion(axis.normalized(), angle)
    pb.scale = scale

def evaluated():
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    return [tuple(v.co) for v in ob.evaluated_get(dg).to_mesh().vertices]

mod.use_deform_preserve_volume = True
dqs = evaluated()
mod.use_deform_preserve_volume = False
lbs = evaluated()

def row3x4(m):
    return " ".join("%.9g" % m[r][c] for r in range(3) for c in range(4))

with open(out_path, "w") as f:
    f.write("# Blender %s, Armature modifier: bones, vertices, DQS with Preserve Volume, LBS\n" % bpy.app.version_string)
    f.write("bones %d\n" % len(names))
    for n in names:
        f.write("rest %s\n" % row3x4(arm_data.bones[n].matrix_local))
        f.write("pose %s\n" % row3x4(arm.pose.bones[n].matrix))
    f.write("vertices %d\n" % len(verts))
    for v, pair, d, l in zip(verts, groups, dqs, lbs):
        f.write("v %.9g %.9g %.9g  %d %.9g %d %.9g  %.9g %.9g %.9g  %.9g %.9g %.9g\n" % (
            v[0], v[1], v[2], names.index(pair[0][0]), pair[0][1], names.index(pair[1][0]), pair[1][1],
            d[0], d[1], d[2], l[0], l[1], l[2]))
print("wrote", out_path)
