// compare.mjs - fk_lbs.h's retargeting against three.js's SkeletonUtils.retarget
// on the same two rigs and clip: the CMU clip and the procedural character of
// examples/retarget.c, which writes both rigs, the clip's frames and its own
// results (before the feet pass) as JSON. Rerun with
//     make build/retarget && build/retarget --frames 0,250,500,...,2750 --dump-json out/retarget.json
//     npm install --prefix tests/threejs      # three, the version in package.json
//     node tests/threejs/compare.mjs out/retarget.json
// (add --no-reference to both for the rigs' rest poses as the posture). Both
// are posed in three.js's own Bone hierarchy, and every target joint's world
// position and rotation are compared. Prints the largest differences.
import { readFileSync } from 'node:fs';
import { Bone, BufferGeometry, Matrix4, MeshBasicMaterial, Quaternion, Skeleton, SkinnedMesh } from 'three';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';

const data = JSON.parse(readFileSync(process.argv[2] || 'out/retarget.json', 'utf8'));

// Bones in three.js's form: position = offset from the parent, quaternion local.
function makeBones(rig) {
    const bones = rig.names.map((name, i) => {
        const bone = new Bone();
        bone.name = name;
        bone.position.fromArray(rig.offsets[i]);
        return bone;
    });
    rig.parents.forEach((p, i) => { if (p >= 0) bones[p].add(bones[i]); });
    return bones;
}

const source = makeBones(data.source), target = makeBones(data.target), ours = makeBones(data.target);
const sourceSkeleton = new Skeleton(source);
const mesh = new SkinnedMesh(new BufferGeometry(), new MeshBasicMaterial());
mesh.add(target[0]);
mesh.updateMatrixWorld(true);
mesh.bind(new Skeleton(target));

// The map as names, and with a reference the offsets three.js multiplies on the
// right of the copied world rotation: P_j^-1 (the source joint's posture in
// world space, from its reference; the character's rest rotations are identity).
const names = {}, localOffsets = {};
const posture = [];
data.source.parents.forEach((p, j) => {
    const q = new Quaternion().fromArray(data.source.reference[j]);
    posture[j] = p < 0 ? q : posture[p].clone().multiply(q);
});
data.target.map.forEach((j, i) => {
    if (j < 0) return;
    names[data.target.names[i]] = data.source.names[j];
    localOffsets[data.target.names[i]] = new Matrix4().makeRotationFromQuaternion(posture[j].clone().invert());
});

// The angle between two rotations as 2 atan2(|v|, |w|) of a^-1 b: acos of a dot
// product near 1 cannot resolve less than about 3e-4 rad from float inputs.
function angleBetween(a, b) {
    const d = a.clone().invert().multiply(b);
    return 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w));
}

function compare(options) {
    let position = 0, angle = 0, hip = 0, bone = 0;
    for (const frame of data.frames) {
        source.forEach((b, j) => b.quaternion.fromArray(frame.source[j]));
        source[0].position.fromArray(frame.source_root);
        source[0].updateMatrixWorld(true);
        SkeletonUtils.retarget(mesh, sourceSkeleton, options);
        mesh.updateMatrixWorld(true);
        ours.forEach((b, i) => b.quaternion.fromArray(frame.target[i]));
        ours[0].position.fromArray(frame.target_root);
        ours[0].updateMatrixWorld(true);
        target.forEach((b, i) => {
            const a = b.getWorldPosition(b.position.clone()), o = ours[i].getWorldPosition(a.clone());
            const d = a.distanceTo(o);
            position = Math.max(position, d);
            if (i === 0) hip = Math.max(hip, d);
            if (data.target.map[i] >= 0)
                angle = Math.max(angle, angleBetween(b.getWorldQuaternion(new Quaternion()),
                                                     ours[i].getWorldQuaternion(new Quaternion())));
            const p = data.target.parents[i];
            if (p >= 0) {
                const length = Math.hypot(...data.target.offsets[i]);
                const posed = b.getWorldPosition(b.position.clone()).distanceTo(target[p].getWorldPosition(b.position.clone()));
                bone = Math.max(bone, Math.abs(posed - length));
            }
        });
    }
    return { position, angle, hip, bone };
}

const format = (r) => `joints ${r.position.toExponential(2)} m apart at most (hips ${r.hip.toExponential(2)} m), ` +
    `rotations ${r.angle.toExponential(2)} rad; three.js's bones ${r.bone.toExponential(2)} m off their length`;
const base = { names, hip: 'Hips', scale: data.scale };
const reference = data.reference_used ? { localOffsets } : {};
console.log(`${data.frames.length} frames, ${data.target.names.length} target joints, scale ${data.scale}, ` +
    `reference ${data.reference_used ? 'as localOffsets' : 'none (rest poses)'}`);
console.log('three.js, same posture: ' + format(compare({ ...base, ...reference })));
if (data.reference_used) console.log('three.js, no localOffsets: ' + format(compare({ ...base })));
console.log('three.js, preserveBonePositions false: ' +
    format(compare({ ...base, ...reference, preserveBonePositions: false })));
