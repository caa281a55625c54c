/* test_gl.c - the shaders of examples/shaders/ on a real OpenGL: Mesa's
   software renderer (llvmpipe), headless through EGL's surfaceless platform,
   once in a desktop GL 3.3 core context and once in a GLES 3.0 context, each
   with its own prelude. For every method the shaders cover, with four and with
   eight influences, a random rig is skinned on the GPU, captured with transform
   feedback, read back, and every vertex held to fk_skin_lbs(), fk_skin_dqs()
   or fk_skin_cor() on the same inputs. Each shader is built with its default palette size, the
   rig has that many bones, and its live uniforms must fit the 256 vec4 that
   GL 3.3 and GLES 3.0 promise (llvmpipe offers more, so only the count shows a
   default that would not build elsewhere; tests/shaders.sh counts them too).

   Without a context (packages missing, llvmpipe refusing) every test fails
   and says why: a check that did not run must not count as a pass. The rig
   draws from one seed, printed first and in every failure message with the
   command that replays it: build/test_gl SEED. */
#define _POSIX_C_SOURCE 200112L /* setenv() */
#include "fk_lbs.h"             /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
/* Every GL entry point is fetched from EGL (below), so that one program and
   one library (libEGL) serve both APIs; gl3.h gives the types and enums,
   which GLES 3.0 and desktop GL 3.3 share for everything used here. */
#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl3.h>

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHADER_DIR
#define SHADER_DIR "examples/shaders"
#endif

#define MAX_BONES 64 /* the largest of the shaders' default FK_MAX_BONES */
#define VERTICES 4096
#define MAX_INFLUENCES 8
#define UNIFORM_VECTORS 256 /* GL_MAX_VERTEX_UNIFORM_VECTORS of GL 3.3 and GLES 3.0, at least */

static unsigned long seed = 20261203ul;

/* ---- GL entry points ---------------------------------------------------------- */

#define GL_FUNCTIONS(X)                                                                                              \
    X(PFNGLGETSTRINGPROC, glGetString) X(PFNGLGETERRORPROC, glGetError) X(PFNGLENABLEPROC, glEnable)                 \
    X(PFNGLCREATESHADERPROC, glCreateShader) X(PFNGLSHADERSOURCEPROC, glShaderSource)                                \
    X(PFNGLCOMPILESHADERPROC, glCompileShader) X(PFNGLGETSHADERIVPROC, glGetShaderiv)                                \
    X(PFNGLGETSHADERINFOLOGPROC, glGetShaderInfoLog) X(PFNGLDELETESHADERPROC, glDeleteShader)                        \
    X(PFNGLCREATEPROGRAMPROC, glCreateProgram) X(PFNGLATTACHSHADERPROC, glAttachShader)                              \
    X(PFNGLTRANSFORMFEEDBACKVARYINGSPROC, glTransformFeedbackVaryings) X(PFNGLLINKPROGRAMPROC, glLinkProgram)        \
    X(PFNGLGETPROGRAMIVPROC, glGetProgramiv) X(PFNGLGETPROGRAMINFOLOGPROC, glGetProgramInfoLog)                      \
    X(PFNGLUSEPROGRAMPROC, glUseProgram) X(PFNGLDELETEPROGRAMPROC, glDeleteProgram)                                  \
    X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation) X(PFNGLUNIFORM4FVPROC, glUniform4fv)                        \
    X(PFNGLGETACTIVEUNIFORMPROC, glGetActiveUniform) X(PFNGLGETINTEGERVPROC, glGetIntegerv)                          \
    X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays) X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray)                    \
    X(PFNGLDELETEVERTEXARRAYSPROC, glDeleteVertexArrays) X(PFNGLGENBUFFERSPROC, glGenBuffers)                        \
    X(PFNGLBINDBUFFERPROC, glBindBuffer) X(PFNGLBUFFERDATAPROC, glBufferData)                                        \
    X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) X(PFNGLBINDBUFFERBASEPROC, glBindBufferBase)                          \
    X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer) X(PFNGLVERTEXATTRIBIPOINTERPROC, glVertexAttribIPointer)  \
    X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray)                                                   \
    X(PFNGLBEGINTRANSFORMFEEDBACKPROC, glBeginTransformFeedback)                                                     \
    X(PFNGLENDTRANSFORMFEEDBACKPROC, glEndTransformFeedback) X(PFNGLDRAWARRAYSPROC, glDrawArrays)                    \
    X(PFNGLMAPBUFFERRANGEPROC, glMapBufferRange) X(PFNGLUNMAPBUFFERPROC, glUnmapBuffer)                              \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer)                    \
    X(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) X(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer)                \
    X(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage)                                                           \
    X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer)

#define DECLARE(type, name) static type name;
GL_FUNCTIONS(DECLARE)

/* Returns the name of the first entry point EGL does not have, or NULL. */
static const char *load_gl(void)
{
#define LOAD(type, name)                                         \
    if (!(name = (type)eglGetProcAddress(#name))) return #name;
    GL_FUNCTIONS(LOAD)
    return NULL;
}

/* ---- The two contexts ------------------------------------------------------------ */

typedef struct context {
    const char *name;
    EGLenum api;
    EGLint renderable, major, minor;
    const char *prelude; /* what docs/gpu.md asks a user to prepend */
} context;

static const context contexts[2] = {
    {"desktop GL 3.3 core", EGL_OPENGL_API, EGL_OPENGL_BIT, 3, 3, "#version 330 core\n"},
    {"GLES 3.0", EGL_OPENGL_ES_API, EGL_OPENGL_ES3_BIT_KHR, 3, 0,
     "#version 300 es\nprecision highp float; precision highp int;\n"},
};

static const context *current;     /* the context the tests run in */
static char context_error[512];    /* why it could not be made, or "" */
static EGLDisplay display = EGL_NO_DISPLAY;
static EGLContext egl_context = EGL_NO_CONTEXT;

static int has_extension(const char *list, const char *name)
{
    size_t length = strlen(name);
    const char *at = list;
    while (at && (at = strstr(at, name)) != NULL) {
        if ((at == list || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0')) return 1;
        at += length;
    }
    return 0;
}

/* Makes a context of the API asked for current, with no surface; on failure
   leaves the reason in context_error. */
static void open_context(const context *c)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, c->renderable, EGL_NONE};
    const EGLint gl_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, c->major, EGL_CONTEXT_MINOR_VERSION, c->minor,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    const EGLint es_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, c->major, EGL_CONTEXT_MINOR_VERSION, c->minor, EGL_NONE};
    const char *missing, *renderer;
    GLuint framebuffer, renderbuffer;
    GLint components = 0;
    EGLConfig config;
    EGLint major, minor, configs = 0;
    current = c;
    context_error[0] = '\0';
    if (!get_platform_display || !has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_MESA_platform_surfaceless")) {
        snprintf(context_error, sizeof context_error, "EGL has no surfaceless platform (is Mesa's libegl-mesa0 installed?)");
        return;
    }
    display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        snprintf(context_error, sizeof context_error, "eglInitialize failed on the surfaceless platform (EGL error 0x%x)",
                 (unsigned)eglGetError());
        return;
    }
    if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context") ||
        !has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_KHR_client_get_all_proc_addresses")) {
        snprintf(context_error, sizeof context_error, "EGL %d.%d lacks surfaceless contexts or core entry points", major, minor);
        return;
    }
    if (!eglBindAPI(c->api) || !eglChooseConfig(display, config_attributes, &config, 1, &configs) || configs < 1) {
        snprintf(context_error, sizeof context_error, "no EGL config renders %s (EGL error 0x%x)", c->name,
                 (unsigned)eglGetError());
        return;
    }
    egl_context = eglCreateContext(display, config, EGL_NO_CONTEXT, c->api == EGL_OPENGL_API ? gl_attributes : es_attributes);
    if (egl_context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context)) {
        snprintf(context_error, sizeof context_error, "no %s context (EGL error 0x%x)", c->name, (unsigned)eglGetError());
        return;
    }
    if ((missing = load_gl()) != NULL) {
        snprintf(context_error, sizeof context_error, "EGL has no %s", missing);
        return;
    }
    /* Without a surface there is no default framebuffer, and a draw call
       fails on an incomplete one even when nothing is rasterized. */
    glGenFramebuffers(1, &framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glGenRenderbuffers(1, &renderbuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
    renderer = (const char *)glGetString(GL_RENDERER);
    glGetIntegerv(GL_MAX_VERTEX_UNIFORM_COMPONENTS, &components);
    printf("   %s: %s, %s, %d vec4 of vertex uniforms\n", c->name, (const char *)glGetString(GL_VERSION),
           renderer ? renderer : "?", components / 4);
}

static void close_context(void)
{
    if (display == EGL_NO_DISPLAY) return;
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (egl_context != EGL_NO_CONTEXT) eglDestroyContext(display, egl_context);
    eglTerminate(display);
    egl_context = EGL_NO_CONTEXT;
    display = EGL_NO_DISPLAY;
}

/* ---- A random rig --------------------------------------------------------------- */

/* The mesh is uploaded as it lies in memory: one buffer, an attribute per
   array, and a second for the second four joints and weights, as glTF's
   JOINTS_1 and WEIGHTS_1. With four influences the last four slots are unused
   and the strides skip them. */
typedef struct mesh {
    float positions[VERTICES][3];
    float normals[VERTICES][3];
    float tangents[VERTICES][4];
    uint16_t joints[VERTICES][MAX_INFLUENCES];
    float weights[VERTICES][MAX_INFLUENCES];
    float centers[VERTICES][3]; /* centres of rotation, for fk_skin_cor() */
} mesh;

typedef struct rig {
    int bone_count, influences;
    int parents[MAX_BONES];
    fk_rigid bones[MAX_BONES];      /* rigid skinning transforms, rotations of random length and sign */
    float matrices[MAX_BONES][12];  /* the same bones with scale: P_j B_j^-1 */
    fk_rigid bind_poses[MAX_BONES]; /* B_j */
    mesh mesh;
} rig;

static rig the_rig;

static fk_quat small_rotation(void)
{
    fk_vec3 axis;
    do axis = random_vec3(1.0f);
    while (fk_vec3_length(axis) < 0.1f);
    return fk_quat_from_axis_angle(axis, rng_uniform(-0.35f, 0.35f));
}

/* A rig of bone_count bones, three quarters of them a skeleton posed as
   skeletons are: each rest and posed frame a small turn from its parent's, so
   that the bones a vertex blends are not far apart and LBS's blended matrices
   stay well conditioned (far-apart rotations can blend to a nearly singular
   matrix, whose normals no two roundings agree on). Then loose bones, leaves
   turned anywhere: the palette's tree signing puts each in its parent's
   hemisphere, not in one another's. Every other bone scales along its axes;
   the last bone, a leaf that only the first vertices reach, also mirrors. A
   vertex has `influences` bones, up its chain of parents; with `loose`, one
   vertex in four hangs on loose bones instead (for DQS, where such blends
   stay well conditioned), so that the shader's per-vertex sign test has work
   to do; one vertex in eight has equal weights, where the first of the
   heaviest sets the hemisphere. The vertices after the mirrored ones have all
   their weights zero, where the CPU gives LBS's origin and zero directions
   and DQS's rest pose. */
#define MIRRORED_VERTICES 64
#define WEIGHTLESS_VERTICES 8

static void make_rig(rig *r, int bone_count, int influences, int loose)
{
    const int mirrored = bone_count - 1, skeleton = bone_count * 3 / 4;
    fk_quat rest[MAX_BONES], posed[MAX_BONES];
    int j, i, e;
    mesh *m = &r->mesh;
    memset(r, 0, sizeof *r);
    r->bone_count = bone_count;
    r->influences = influences;
    for (j = 0; j < bone_count; ++j) {
        float posed_matrix[12], bind[12], bind_inverse[12], length = rng_uniform(0.5f, 2.0f) * (rng_below(2) ? -1.0f : 1.0f);
        fk_vec3 scale = fk_vec3_make(1.0f, 1.0f, 1.0f), posed_t = random_vec3(3.0f);
        fk_rigid bone;
        r->parents[j] = j == 0 ? -1 : rng_below(j < skeleton ? j : skeleton);
        rest[j] = j == 0 || j >= skeleton ? random_quat() : fk_quat_mul(rest[r->parents[j]], small_rotation());
        posed[j] = j == 0 || j >= skeleton ? random_quat() : fk_quat_mul(posed[r->parents[j]], small_rotation());
        r->bind_poses[j] = fk_rigid_make(rest[j], random_vec3(2.0f));
        bone = fk_rigid_mul(fk_rigid_make(posed[j], posed_t), fk_rigid_inverse(r->bind_poses[j]));
        r->bones[j] = fk_rigid_make(fk_quat_make(bone.q.x * length, bone.q.y * length, bone.q.z * length, bone.q.w * length), bone.t);
        if (j % 2) scale = fk_vec3_make(rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f));
        if (j == mirrored) scale.x = -scale.x;
        fk_mat34_from_trs(posed_t, posed[j], scale, posed_matrix);
        fk_rigid_to_mat34(r->bind_poses[j], bind);
        fk_mat34_inverse(bind, bind_inverse);
        fk_mat34_mul(posed_matrix, bind_inverse, r->matrices[j]);
    }
    for (i = 0; i < VERTICES; ++i) {
        const int on_loose = loose && rng_below(4) == 0, equal = rng_below(8) == 0;
        int bone = on_loose ? skeleton + rng_below(mirrored - skeleton) : rng_below(skeleton);
        float total = 0.0f;
        fk_vec3 p = random_vec3(2.0f), n = fk_vec3_normalize(random_vec3(1.0f)), t = fk_vec3_normalize(random_vec3(1.0f));
        m->positions[i][0] = p.x; m->positions[i][1] = p.y; m->positions[i][2] = p.z;
        m->normals[i][0] = n.x; m->normals[i][1] = n.y; m->normals[i][2] = n.z;
        m->tangents[i][0] = t.x; m->tangents[i][1] = t.y; m->tangents[i][2] = t.z;
        m->tangents[i][3] = rng_below(2) ? 1.0f : -1.0f;
        for (e = 0; e < influences; ++e) {
            m->joints[i][e] = (uint16_t)(i < MIRRORED_VERTICES ? mirrored : bone);
            m->weights[i][e] = i < MIRRORED_VERTICES ? (e == 0 ? 1.0f : 0.0f) : equal ? 1.0f : rng_uniform(0.05f, 1.0f);
            if (i >= MIRRORED_VERTICES && i < MIRRORED_VERTICES + WEIGHTLESS_VERTICES) m->weights[i][e] = 0.0f;
            total += m->weights[i][e];
            bone = on_loose ? skeleton + rng_below(mirrored - skeleton) : r->parents[bone] >= 0 ? r->parents[bone] : bone;
        }
        for (e = 0; total > 0.0f && e < influences; ++e) m->weights[i][e] /= total;
    }
}

/* What CoR reads beyond the rig, drawn after it (the rig is then the one the
   other methods draw): a centre of rotation per vertex; the formula holds
   for any centre, so most are anywhere in the model's box, but a vertex of
   one bone (the mirrored ones) and one vertex in eight get their own
   position, as fk_cor_centers() gives a vertex with no sample that shares
   two of its bones, where skinning with centres is LBS. One vertex in eight
   has its weights scaled by 0.5 to 2: the centre moves by the weights as
   given, while R and S do not depend on their scale. Every third bone also
   shears, so that its scale part is not symmetric and a shader that
   transposes it shows. */
static void make_cor_inputs(rig *r)
{
    int i, j, e;
    for (i = 0; i < VERTICES; ++i) {
        const fk_vec3 c = random_vec3(2.0f);
        const int own = i < MIRRORED_VERTICES || rng_below(8) == 0;
        const float weight_scale = rng_below(8) == 0 ? rng_uniform(0.5f, 2.0f) : 1.0f;
        for (e = 0; e < 3; ++e) r->mesh.centers[i][e] = own ? r->mesh.positions[i][e] : (&c.x)[e];
        for (e = 0; e < r->influences; ++e) r->mesh.weights[i][e] *= weight_scale;
    }
    for (j = 0; j < r->bone_count; j += 3) {
        const float shear[12] = {1.0f, rng_uniform(-0.5f, 0.5f), 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};
        float sheared[12];
        fk_mat34_mul(r->matrices[j], shear, sheared);
        memcpy(r->matrices[j], sheared, sizeof sheared);
    }
}

/* ---- The methods ------------------------------------------------------------------ */

typedef enum method {
    LBS_RIGID, LBS_AFFINE, DQS_RIGID, DQS_SCALED_AT_VERTEX, DQS_SCALED_AT_BONE, COR_RIGID, COR_SCALED, METHODS
} method;

/* Each method's shader and options, the uniform its palette goes to, and the
   vec4 a bone takes there; DQS and CoR with scale also fill fk_scale_parts, 3
   a bone. CoR reads DQS's palettes, and its centres as attribute 7. */
static const struct {
    const char *name, *shader, *defines, *palette;
    int vectors;
} methods[METHODS] = {
    {"LBS, rigid bones", "skin_lbs.vert", "", "fk_matrices", 3},
    {"LBS, affine bones", "skin_lbs.vert", "#define FK_LBS_AFFINE\n", "fk_matrices", 3},
    {"DQS, rigid bones", "skin_dqs.vert", "", "fk_dual_quats", 2},
    {"DQS, scale at vertex", "skin_dqs.vert", "#define FK_DQS_SCALE_AT_VERTEX\n", "fk_dual_quats", 2},
    {"DQS, scale at bone", "skin_dqs.vert", "#define FK_DQS_SCALE_AT_BONE\n", "fk_dual_quats", 2},
    {"CoR, rigid bones", "skin_cor.vert", "", "fk_dual_quats", 2},
    {"CoR, bones with scale", "skin_cor.vert", "#define FK_COR_SCALED\n", "fk_dual_quats", 2},
};
#define SCALED(m) ((m) == DQS_SCALED_AT_VERTEX || (m) == DQS_SCALED_AT_BONE || (m) == COR_SCALED)
#define RIGID(m) ((m) == LBS_RIGID || (m) == DQS_RIGID || (m) == COR_RIGID)
#define COR(m) ((m) == COR_RIGID || (m) == COR_SCALED)

/* What a vertex gives back through transform feedback, in the order of the
   varyings named at link time. */
#define OUT_FLOATS 10
static const char *const varyings[3] = {"fk_skinned_position", "fk_skinned_normal", "fk_skinned_tangent"};

/* The CPU's answer, and the palettes the shader reads (rows of vec4). */
static float cpu_positions[VERTICES][3], cpu_normals[VERTICES][3], cpu_tangents[VERTICES][4];
static float palette[MAX_BONES * 3 * 4], scale_parts[MAX_BONES * 3 * 4];

/* Skins the rig on the CPU and fills the palettes. */
static void skin_on_cpu(method m)
{
    const int bones = the_rig.bone_count;
    fk_skin_desc d;
    fk_result result;
    memset(&d, 0, sizeof d);
    d.vertex_count = VERTICES; d.influences = the_rig.influences;
    d.positions = &the_rig.mesh.positions[0][0]; d.normals = &the_rig.mesh.normals[0][0];
    d.tangents = &the_rig.mesh.tangents[0][0];
    d.joints = &the_rig.mesh.joints[0][0]; d.weights = &the_rig.mesh.weights[0][0];
    d.joint_stride = sizeof the_rig.mesh.joints[0]; d.weight_stride = sizeof the_rig.mesh.weights[0];
    d.transform_count = bones;
    d.out_positions = &cpu_positions[0][0]; d.out_normals = &cpu_normals[0][0]; d.out_tangents = &cpu_tangents[0][0];
    if (RIGID(m)) d.transforms = the_rig.bones;
    else { d.matrices = &the_rig.matrices[0][0]; d.bind_poses = the_rig.bind_poses; }
    d.dqs_scale_center = m == DQS_SCALED_AT_BONE ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
    if (m == LBS_RIGID || m == LBS_AFFINE) {
        if (m == LBS_RIGID) CHECK(fk_palette_matrices(bones, the_rig.bones, palette) == FK_OK, "palette failed");
        else memcpy(palette, the_rig.matrices, sizeof the_rig.matrices); /* affine bones are their own palette */
        result = fk_skin_lbs(&d);
    } else {
        if (RIGID(m)) {
            CHECK(fk_palette_dual_quats(bones, the_rig.parents, the_rig.bones, palette) == FK_OK, "palette failed");
        } else {
            CHECK(fk_palette_dual_quats_scaled(bones, the_rig.parents, &the_rig.matrices[0][0], the_rig.bind_poses,
                                               palette, scale_parts) == FK_OK, "scaled palette failed");
        }
        result = COR(m) ? fk_skin_cor(&d, &the_rig.mesh.centers[0][0], 0) : fk_skin_dqs(&d);
    }
    CHECK(result == FK_OK, "%s on the CPU: %s", methods[m].name, fk_result_description(result));
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) != NULL) {
        if (fread(text, 1, (size_t)size, f) != (size_t)size) { free(text); text = NULL; }
        else text[size] = '\0';
    }
    fclose(f);
    return text;
}

/* Compiles the prelude, the defines and the source as one shader; 0 on failure
   (the log printed). */
static GLuint compile(GLenum type, const char *defines, const char *source, const char *name)
{
    const GLchar *parts[3];
    GLuint shader = glCreateShader(type);
    GLint ok = 0;
    char log[2048];
    parts[0] = current->prelude; parts[1] = defines; parts[2] = source;
    glShaderSource(shader, 3, parts, NULL);
    glCompileShader(shader);
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        CHECK(0, "%s does not compile under %s:\n%s", name, current->name, log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

/* The vertex shader of method m with its default palette size, with 4 or 8
   influences, and a fragment shader that does nothing (GLES wants one even
   when nothing is drawn), linked to capture the skinned vertex; 0 on failure. */
static GLuint build_program(method m, int influences)
{
    static const char fragment_source[] = "out vec4 color;\nvoid main() { color = vec4(1.0); }\n";
    char path[512], defines[256], log[2048];
    char *source;
    GLuint program = 0, vertex, fragment;
    GLint ok = 0;
    snprintf(path, sizeof path, "%s/%s", SHADER_DIR, methods[m].shader);
    if (!CHECK((source = read_text(path)) != NULL, "cannot read %s", path)) return 0;
    snprintf(defines, sizeof defines, "#define FK_INFLUENCES %d\n%s", influences, methods[m].defines);
    vertex = compile(GL_VERTEX_SHADER, defines, source, methods[m].shader);
    fragment = compile(GL_FRAGMENT_SHADER, "", fragment_source, "the fragment shader");
    free(source);
    if (vertex && fragment) {
        program = glCreateProgram();
        glAttachShader(program, vertex);
        glAttachShader(program, fragment);
        glTransformFeedbackVaryings(program, 3, varyings, GL_INTERLEAVED_ATTRIBS);
        glLinkProgram(program);
        glGetProgramiv(program, GL_LINK_STATUS, &ok);
        if (!ok) {
            glGetProgramInfoLog(program, sizeof log, NULL, log);
            CHECK(0, "%s does not link under %s:\n%s", methods[m].shader, current->name, log);
            glDeleteProgram(program);
            program = 0;
        }
    }
    if (vertex) glDeleteShader(vertex);
    if (fragment) glDeleteShader(fragment);
    return program;
}

/* The bones the program's palette holds (the shader's FK_MAX_BONES), and in
   *vectors the vec4 that its live uniforms take, a matrix one a column. */
static int palette_bones(GLuint program, method m, GLint *vectors)
{
    const size_t length = strlen(methods[m].palette);
    GLint count = 0, i, size, bones = 0;
    GLenum type;
    char name[64];
    *vectors = 0;
    glGetProgramiv(program, GL_ACTIVE_UNIFORMS, &count);
    for (i = 0; i < count; ++i) {
        glGetActiveUniform(program, (GLuint)i, sizeof name, NULL, &size, &type, name);
        *vectors += size * (type == GL_FLOAT_MAT4 ? 4 : type == GL_FLOAT_MAT3 ? 3 : type == GL_FLOAT_MAT2 ? 2 : 1);
        if (strncmp(name, methods[m].palette, length) == 0 && (name[length] == '[' || name[length] == '\0'))
            bones = size / methods[m].vectors;
    }
    return bones;
}

static void set_uniform(GLuint program, const char *name, int vec4s, const float *values)
{
    GLint location = glGetUniformLocation(program, name);
    CHECK(location >= 0, "the shader has no uniform %s", name);
    glUniform4fv(location, vec4s, values);
}

/* Skins the rig with method m's program; 1 when gpu[] holds every vertex. */
static int skin_on_gpu(GLuint program, method m, float *gpu)
{
    /* locations 0 to 6: fk_position, fk_normal, fk_tangent, fk_joints,
       fk_weights, then fk_joints_1 and fk_weights_1 from the same arrays */
    static const struct { GLint size; GLenum type; GLsizei stride; size_t offset; } attributes[7] = {
        {3, GL_FLOAT, 0, offsetof(mesh, positions)}, {3, GL_FLOAT, 0, offsetof(mesh, normals)},
        {4, GL_FLOAT, 0, offsetof(mesh, tangents)},
        {4, GL_UNSIGNED_SHORT, sizeof(uint16_t) * MAX_INFLUENCES, offsetof(mesh, joints)},
        {4, GL_FLOAT, sizeof(float) * MAX_INFLUENCES, offsetof(mesh, weights)},
        {4, GL_UNSIGNED_SHORT, sizeof(uint16_t) * MAX_INFLUENCES, offsetof(mesh, joints) + sizeof(uint16_t) * 4},
        {4, GL_FLOAT, sizeof(float) * MAX_INFLUENCES, offsetof(mesh, weights) + sizeof(float) * 4}};
    const GLsizeiptr out_bytes = (GLsizeiptr)(sizeof(float) * OUT_FLOATS * VERTICES);
    const GLuint attribute_count = the_rig.influences == 8 ? 7 : 5;
    GLuint array, buffers[2], a;
    GLenum error;
    const void *mapped;
    glUseProgram(program);
    set_uniform(program, methods[m].palette, methods[m].vectors * the_rig.bone_count, palette);
    if (SCALED(m)) set_uniform(program, "fk_scale_parts", 3 * the_rig.bone_count, scale_parts);
    glGenVertexArrays(1, &array);
    glBindVertexArray(array);
    glGenBuffers(2, buffers);
    glBindBuffer(GL_ARRAY_BUFFER, buffers[0]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)sizeof the_rig.mesh, &the_rig.mesh, GL_STATIC_DRAW);
    for (a = 0; a < attribute_count; ++a) {
        const void *offset = (const void *)(uintptr_t)attributes[a].offset; /* into the bound buffer */
        if (attributes[a].type == GL_UNSIGNED_SHORT)
            glVertexAttribIPointer(a, attributes[a].size, attributes[a].type, attributes[a].stride, offset);
        else glVertexAttribPointer(a, attributes[a].size, attributes[a].type, GL_FALSE, attributes[a].stride, offset);
        glEnableVertexAttribArray(a);
    }
    if (COR(m)) {
        glVertexAttribPointer(7, 3, GL_FLOAT, GL_FALSE, 0, (const void *)(uintptr_t)offsetof(mesh, centers));
        glEnableVertexAttribArray(7);
    }
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buffers[1]);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, out_bytes, NULL, GL_STATIC_READ);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffers[1]);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, VERTICES);
    glEndTransformFeedback();
    mapped = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, out_bytes, GL_MAP_READ_BIT);
    if (mapped) {
        memcpy(gpu, mapped, (size_t)out_bytes);
        glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
    }
    error = glGetError();
    glDeleteBuffers(2, buffers);
    glDeleteVertexArrays(1, &array);
    return CHECK(mapped != NULL && error == GL_NO_ERROR, "%s under %s: GL error 0x%x", methods[m].name, current->name,
                 (unsigned)error);
}

/* ---- The comparison --------------------------------------------------------------- */

/* Positions are held to POSITION_ULPS float epsilons of the model's size: the
   largest coordinate any term of the skinning sums has (rest positions, the
   bones' translations, skinned positions). Each output coordinate is a short
   chain of sums of products of such terms; every operation rounds to half an
   ulp of at most that size, and the CPU and the GPU order, fuse (FMA) and
   round the chain differently, so they can differ by about the sum of both
   sides' roundings. The longest chain, DQS, blends (8 roundings), normalizes
   (a reciprocal square root, not correctly rounded on either side, and 1)
   and rotates and translates (about 8): some 20 half-ulps a side, and most
   roundings fall far below their bound, so 16 ulps holds with room and is
   still far below any mistake in the formulas, which moves a vertex by a
   good part of the model's size. Normals and tangents are unit vectors,
   compared to 1e-5; the tangents' w bit for bit. */
#define POSITION_ULPS 16.0
#define DIRECTION_TOLERANCE 1e-5

static double model_size(void)
{
    double size = 0.0;
    int i, e;
    for (i = 0; i < VERTICES; ++i)
        for (e = 0; e < 3; ++e) {
            size = fmax(size, fabs(the_rig.mesh.positions[i][e]));
            size = fmax(size, fabs(cpu_positions[i][e]));
            size = fmax(size, fabs(the_rig.mesh.centers[i][e]));
        }
    for (i = 0; i < the_rig.bone_count; ++i) {
        size = fmax(size, fmax(fabs(the_rig.bones[i].t.x), fmax(fabs(the_rig.bones[i].t.y), fabs(the_rig.bones[i].t.z))));
        for (e = 0; e < 3; ++e) size = fmax(size, fabs(the_rig.matrices[i][4 * e + 3]));
    }
    return size;
}

/* The largest difference of count floats; NaN on either side counts as infinite. */
static double difference(const float *gpu, const float *cpu, int count)
{
    double worst = 0.0;
    int e;
    for (e = 0; e < count; ++e) {
        const double d = fabs((double)gpu[e] - cpu[e]);
        if (d != d) return HUGE_VAL;
        if (d > worst) worst = d;
    }
    return worst;
}

static void method_matches_the_cpu(method m, int influences)
{
    static float gpu[VERTICES][OUT_FLOATS];
    int i, e, bones, worst_at[3] = {-1, -1, -1}, bad_w = -1, ok;
    double worst[3] = {0.0, 0.0, 0.0}, size;
    GLint vectors;
    GLuint program;
    if (!CHECK(context_error[0] == '\0', "no %s context on llvmpipe: %s", current->name, context_error)) return;
    if (!(program = build_program(m, influences))) return;
    bones = palette_bones(program, m, &vectors);
    CHECK(vectors <= UNIFORM_VECTORS, "%s, %s, %d influences: the uniforms take %d vec4, over the %d that GL 3.3 and "
          "GLES 3.0 promise", current->name, methods[m].name, influences, vectors, UNIFORM_VECTORS);
    if (!CHECK(bones >= 2 && bones <= MAX_BONES, "%s: a palette of %d bones", methods[m].name, bones)) {
        glDeleteProgram(program);
        return;
    }
    rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15u + (uint64_t)influences * METHODS + (uint64_t)m + 1u;
    make_rig(&the_rig, bones, influences, m >= DQS_RIGID);
    if (COR(m)) make_cor_inputs(&the_rig);
    skin_on_cpu(m);
    ok = skin_on_gpu(program, m, &gpu[0][0]);
    glDeleteProgram(program);
    if (!ok) return;
    size = model_size();
    for (i = 0; i < VERTICES; ++i) {
        const double d[3] = {difference(gpu[i], cpu_positions[i], 3), difference(gpu[i] + 3, cpu_normals[i], 3),
                             difference(gpu[i] + 6, cpu_tangents[i], 3)};
        for (e = 0; e < 3; ++e)
            if (d[e] > worst[e] || worst_at[e] < 0) { worst[e] = d[e]; worst_at[e] = i; }
        if (memcmp(&gpu[i][9], &cpu_tangents[i][3], sizeof(float)) != 0) bad_w = i;
    }
    printf("   %-19s %-20s k=%d, %d bones, %3d vec4: positions %5.2f ulps of %.1f, normals %.1e, tangents %.1e\n",
           current->name, methods[m].name, influences, bones, vectors, worst[0] / (FLT_EPSILON * size), size, worst[1],
           worst[2]);
    CHECK(worst[0] <= POSITION_ULPS * FLT_EPSILON * size,
          "%s, %s, k=%d: vertex %d is %g from the CPU's, over %g ulps of the size %g (seed %lu, replay: build/test_gl %lu)",
          current->name, methods[m].name, influences, worst_at[0], worst[0], POSITION_ULPS, size, seed, seed);
    CHECK(worst[1] <= DIRECTION_TOLERANCE,
          "%s, %s, k=%d: vertex %d's normal is %g from the CPU's (seed %lu, replay: build/test_gl %lu)", current->name,
          methods[m].name, influences, worst_at[1], worst[1], seed, seed);
    CHECK(worst[2] <= DIRECTION_TOLERANCE,
          "%s, %s, k=%d: vertex %d's tangent is %g from the CPU's (seed %lu, replay: build/test_gl %lu)", current->name,
          methods[m].name, influences, worst_at[2], worst[2], seed, seed);
    CHECK(bad_w < 0, "%s, %s, k=%d: vertex %d's tangent w changed (seed %lu, replay: build/test_gl %lu)", current->name,
          methods[m].name, influences, bad_w, seed, seed);
}

static void lbs_of_rigid_bones_matches_fk_skin_lbs(void) { method_matches_the_cpu(LBS_RIGID, 4); }
static void lbs_of_affine_bones_matches_fk_skin_lbs(void) { method_matches_the_cpu(LBS_AFFINE, 4); }
static void dqs_of_rigid_bones_matches_fk_skin_dqs(void) { method_matches_the_cpu(DQS_RIGID, 4); }
static void dqs_scaled_at_the_vertex_matches_fk_skin_dqs(void) { method_matches_the_cpu(DQS_SCALED_AT_VERTEX, 4); }
static void dqs_scaled_at_the_bone_matches_fk_skin_dqs(void) { method_matches_the_cpu(DQS_SCALED_AT_BONE, 4); }
static void cor_of_rigid_bones_matches_fk_skin_cor(void) { method_matches_the_cpu(COR_RIGID, 4); }
static void cor_of_scaled_bones_matches_fk_skin_cor(void) { method_matches_the_cpu(COR_SCALED, 4); }
/* FK_INFLUENCES 8: a second set of four joints and weights */
static void lbs_of_rigid_bones_8_influences_matches(void) { method_matches_the_cpu(LBS_RIGID, 8); }
static void lbs_of_affine_bones_8_influences_matches(void) { method_matches_the_cpu(LBS_AFFINE, 8); }
static void dqs_of_rigid_bones_8_influences_matches(void) { method_matches_the_cpu(DQS_RIGID, 8); }
static void dqs_scaled_at_the_vertex_8_influences_matches(void) { method_matches_the_cpu(DQS_SCALED_AT_VERTEX, 8); }
static void dqs_scaled_at_the_bone_8_influences_matches(void) { method_matches_the_cpu(DQS_SCALED_AT_BONE, 8); }
static void cor_of_rigid_bones_8_influences_matches(void) { method_matches_the_cpu(COR_RIGID, 8); }
static void cor_of_scaled_bones_8_influences_matches(void) { method_matches_the_cpu(COR_SCALED, 8); }

static void llvmpipe_opens_a_context(void)
{
    CHECK(context_error[0] == '\0', "no %s context on llvmpipe: %s", current->name, context_error);
}

int main(int argc, char **argv)
{
    int c;
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_gl %lu)\n", seed, seed);
    /* Mesa's software renderer, even where a GPU is present: the test checks
       the shaders against one known implementation. */
    setenv("LIBGL_ALWAYS_SOFTWARE", "1", 0);
    for (c = 0; c < 2; ++c) {
        open_context(&contexts[c]);
        RUN_TEST(llvmpipe_opens_a_context);
        RUN_TEST(lbs_of_rigid_bones_matches_fk_skin_lbs);
        RUN_TEST(lbs_of_affine_bones_matches_fk_skin_lbs);
        RUN_TEST(dqs_of_rigid_bones_matches_fk_skin_dqs);
        RUN_TEST(dqs_scaled_at_the_vertex_matches_fk_skin_dqs);
        RUN_TEST(dqs_scaled_at_the_bone_matches_fk_skin_dqs);
        RUN_TEST(cor_of_rigid_bones_matches_fk_skin_cor);
        RUN_TEST(cor_of_scaled_bones_matches_fk_skin_cor);
        RUN_TEST(lbs_of_rigid_bones_8_influences_matches);
        RUN_TEST(lbs_of_affine_bones_8_influences_matches);
        RUN_TEST(dqs_of_rigid_bones_8_influences_matches);
        RUN_TEST(dqs_scaled_at_the_vertex_8_influences_matches);
        RUN_TEST(dqs_scaled_at_the_bone_8_influences_matches);
        RUN_TEST(cor_of_rigid_bones_8_influences_matches);
        RUN_TEST(cor_of_scaled_bones_8_influences_matches);
        close_context();
    }
    return check_finish();
}
