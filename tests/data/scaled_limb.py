# scaled_limb.py - writes tests/data/scaled_limb.gltf: a small rigged limb whose
# bones scale (stretch, squash, non-uniform) over a short animation, under an
# armature object scaled by 0.5, for build/rig_pose and tests/test_realdata.c.
#
#   blender -b --python tests/data/scaled_limb.py -- tests/data/scaled_limb.gltf
#
# Debian's Blender 3.4.1 (with python3-numpy for its glTF exporter) wrote the
# committed file.
import sys
import numpy
numpy.bool = bool  # Blender 3.4's glTF importer and exporter still use the alias NumPy 1.24 removed
import bpy
from mathutils import Quaternion, Vector

out_path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 21

arm_data = bpy.data.armatures.new("LimbArmature")
arm = bpy.data.objects.new("Limb", arm_data)
scene.collection.objects.link(arm)
arm.scale = (0.5, 0.5, 0.5)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode='EDIT')
names = ["upper", "lower", "hand"]
heads = [(0, 0, 0), (0, 1.2, 0), (0, 2.2, 0.1)]
tails = [(0, 1.2, 0), (0, 2.2, 0.1), (0, 2.8, 0.1)]
for i, n in enumerate(names):
    b = arm_data.edit_bones.new(n)
    b.head, b.tail, b.roll = heads[i], tails[i], 0.3 * i
    if i: b.parent = arm_data.edit_bones[names[i - 1]]; b.use_connect = True
bpy.ops.object.mode_set(mode='OBJECT')

# A tube of 12 rings of 8 vertices along the limb, weighted by distance along it.
verts, faces, groups = [], [], []
rings, sides = 12, 8
import math
for r in range(rings):
    y = 2.8 * r / (rings - 1)
    for k in range(sides):
        a = 2 * math.pi * k / sides
        verts.append((0.25 * math.cos(a), y, 0.25 * math.sin(a) + (0.1 if y > 2.2 else 0.0)))
        if y < 1.0: groups.append((("upper", 1.0),))
        elif y < 1.4: t = (y - 1.0) / 0.4; groups.append((("upper", 1 - t), ("lower", t)))
        elif y < 2.0: groups.append((("lower", 1.0),))
        elif y < 2.4: t = (y - 2.0) / 0.4; groups.append((("lower", 1 - t), ("hand", t)))
        else: groups.append((("hand", 1.0),))
for r in range(rings - 1):
    for k in range(sides):
        a, b = r * sides + k, r * sides + (k + 1) % sides
        faces.append((a, b, b + sides, a + sides))
me = bpy.data.meshes.new("LimbMesh"); me.from_pydata(verts, [], faces); me.update()
ob = bpy.data.objects.new("LimbMesh", me); scene.collection.objects.link(ob)
ob.parent = arm
vg = {n: ob.vertex_groups.new(name=n) for n in names}
for index, pairs in enumerate(groups):
    for name, w in pairs:
        if w > 0: vg[name].add([index], w, 'REPLACE')
mod = ob.modifiers.new("Armature", 'ARMATURE'); mod.object = arm

# The animation: the lower bone stretches and squashes, the upper scales
# non-uniformly, everything bends a little.
for pb in arm.pose.bones: pb.rotation_mode = 'QUATERNION'
keys = {1: ((1, 1, 1), (1, 1, 1), 0.0), 11: ((1.3, 0.8, 1.1), (0.7, 1.8, 0.7), 0.6), 21: ((0.9, 1.2, 0.8), (1.4, 0.6, 1.4), -0.4)}
for frame, (upper, lower, bend) in keys.items():
    scene.frame_set(frame)
    arm.pose.bones["upper"].scale = upper
    arm.pose.bones["lower"].scale = lower
    arm.pose.bones["lower"].rotation_quaternion = Quaternion(Vector((1, 0, 0.2)).normalized(), bend)
    arm.pose.bones["hand"].rotation_quaternion = Quaternion(Vector((0, 0, 1)), 0.5 * bend)
    for n in names:
        pb = arm.pose.bones[n]
        pb.keyframe_insert("scale", frame=frame)
        pb.keyframe_insert("rotation_quaternion", frame=frame)
bpy.ops.export_scene.gltf(filepath=out_path, export_format='GLTF_EMBEDDED', export_animations=True,
                          export_skins=True, export_yup=True)
print("wrote", out_path)
