/* render.c - the examples' software renderer; see render.h.

   This is the one file that includes the stb headers, with stb_image_write's
   implementation: the headers come from /usr/include/stb (Debian's libstb-dev), a
   system directory, so the compiler does not hold their style against the project's
   warning flags, and no other file needs them. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdir */
#endif
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#include <stb/stb_easy_font.h>

#define RENDER_PI 3.14159265358979f

/* ---- Command line ---------------------------------------------------------------- */

int render_parse_options(int argc, char **argv, const char *about, render_options *options)
{
    int i;
    options->out_dir = "out";
    options->scale = 1.0f;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s [--out DIR] [--scale F]\n%s\n"
                   "  --out DIR   write the pictures into DIR (default: out)\n"
                   "  --scale F   make the pictures F times as large (default: 1)\n",
                   argv[0], about);
            return 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            options->out_dir = argv[++i];
        } else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            options->scale = strtof(argv[++i], NULL);
            if (!(options->scale >= 0.25f && options->scale <= 4.0f)) {
                fprintf(stderr, "%s: --scale must be between 0.25 and 4\n", argv[0]);
                return -1;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", argv[0], argv[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- Small vector helpers (fk_lbs.h has the rest) ------------------------------------ */

static fk_vec3 render__point(const float *xyz) { return fk_vec3_make(xyz[0], xyz[1], xyz[2]); }

static fk_vec3 render__lerp(fk_vec3 a, fk_vec3 b, float s) { return fk_vec3_add(a, fk_vec3_scale(fk_vec3_sub(b, a), s)); }

/* Any unit vector perpendicular to the unit vector t. */
static fk_vec3 render__perpendicular(fk_vec3 t)
{
    fk_vec3 helper = fabsf(t.x) < 0.9f ? fk_vec3_make(1, 0, 0) : fk_vec3_make(0, 1, 0);
    return fk_vec3_normalize(fk_vec3_cross(t, helper));
}

/* ---- Triangle meshes ---------------------------------------------------------------- */

/* realloc that gives up on failure: the examples have no use for half a picture. */
static void *render__resize(void *array, size_t bytes)
{
    void *resized = realloc(array, bytes);
    if (!resized) {
        fprintf(stderr, "render: out of memory\n");
        exit(1);
    }
    return resized;
}

static int render__add_vertex(render_mesh *mesh, fk_vec3 p)
{
    int index = mesh->vertex_count;
    if (index == mesh->vertex_capacity) { /* positions, normals and colours grow together */
        size_t bytes;
        mesh->vertex_capacity = mesh->vertex_capacity ? 2 * mesh->vertex_capacity : 256;
        bytes = (size_t)mesh->vertex_capacity * 3 * sizeof(float);
        mesh->positions = (float *)render__resize(mesh->positions, bytes);
        mesh->normals = (float *)render__resize(mesh->normals, bytes);
        if (mesh->colors) mesh->colors = (float *)render__resize(mesh->colors, bytes);
    }
    mesh->positions[3 * index] = p.x;
    mesh->positions[3 * index + 1] = p.y;
    mesh->positions[3 * index + 2] = p.z;
    if (mesh->colors) mesh->colors[3 * index] = mesh->colors[3 * index + 1] = mesh->colors[3 * index + 2] = 1.0f;
    mesh->vertex_count = index + 1;
    return index;
}

static void render__add_triangle(render_mesh *mesh, int a, int b, int c)
{
    int *t;
    if (mesh->triangle_count == mesh->triangle_capacity) {
        mesh->triangle_capacity = mesh->triangle_capacity ? 2 * mesh->triangle_capacity : 256;
        mesh->triangles = (int *)render__resize(mesh->triangles, (size_t)mesh->triangle_capacity * 3 * sizeof(int));
    }
    t = mesh->triangles + 3 * mesh->triangle_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

/* Vertex normals as the area-weighted average of the faces around each vertex: the
   cross product's length is twice the area, so summing unnormalized face normals
   weights them for free. */
static void render__compute_normals(render_mesh *mesh, int first_vertex, int first_triangle)
{
    int i, k;
    memset(mesh->normals + 3 * first_vertex, 0, (size_t)(mesh->vertex_count - first_vertex) * 3 * sizeof(float));
    for (i = first_triangle; i < mesh->triangle_count; ++i) {
        const int *t = mesh->triangles + 3 * i;
        fk_vec3 a = render__point(mesh->positions + 3 * t[0]);
        fk_vec3 face = fk_vec3_cross(fk_vec3_sub(render__point(mesh->positions + 3 * t[1]), a),
                                     fk_vec3_sub(render__point(mesh->positions + 3 * t[2]), a));
        for (k = 0; k < 3; ++k) {
            float *n = mesh->normals + 3 * t[k];
            n[0] += face.x;
            n[1] += face.y;
            n[2] += face.z;
        }
    }
    for (i = first_vertex; i < mesh->vertex_count; ++i) {
        fk_vec3 n = fk_vec3_normalize(render__point(mesh->normals + 3 * i));
        mesh->normals[3 * i] = n.x;
        mesh->normals[3 * i + 1] = n.y;
        mesh->normals[3 * i + 2] = n.z;
    }
}

/* A ring of `sides` vertices around center in the plane spanned by u and v. */
static int render__add_ring(render_mesh *mesh, fk_vec3 center, fk_vec3 u, fk_vec3 v, float radius, int sides)
{
    int i, first = mesh->vertex_count;
    for (i = 0; i < sides; ++i) {
        float angle = 2.0f * RENDER_PI * (float)i / (float)sides;
        fk_vec3 offset = fk_vec3_add(fk_vec3_scale(u, cosf(angle) * radius), fk_vec3_scale(v, sinf(angle) * radius));
        render__add_vertex(mesh, fk_vec3_add(center, offset));
    }
    return first;
}

/* Joins ring a to the ring b ahead of it (along u x v) with outward-facing triangles. */
static void render__join_rings(render_mesh *mesh, int a, int b, int sides)
{
    int i;
    for (i = 0; i < sides; ++i) {
        int next = (i + 1) % sides;
        render__add_triangle(mesh, a + i, a + next, b + next);
        render__add_triangle(mesh, a + i, b + next, b + i);
    }
}

int render_mesh_add_tube(render_mesh *mesh, const fk_vec3 *path, const float *radii, int path_count,
                         int sides, int rings)
{
    /* Rings are placed along the path with frames carried by parallel transport, so
       the tube does not twist on its own; at an interior point the ring is tilted
       half-way between the two segments. Each end is a half-sphere of rings. */
    int first_vertex = mesh->vertex_count, first_triangle = mesh->triangle_count;
    int cap_rings = sides / 4 > 2 ? sides / 4 : 2;
    int k, j, ring, previous;
    fk_vec3 tangent_start, tangent_end, u, v, u_previous;
    fk_vec3 single_axis = fk_vec3_make(0, 1, 0);
    int last = path_count - 1;

    if (path_count < 1 || sides < 3) return first_vertex;
    if (rings < 1) rings = 1;
    tangent_start = path_count > 1 ? fk_vec3_normalize(fk_vec3_sub(path[1], path[0])) : single_axis;
    tangent_end = path_count > 1 ? fk_vec3_normalize(fk_vec3_sub(path[last], path[last - 1])) : single_axis;

    /* start cap: a pole, then rings widening to the first path point */
    u = render__perpendicular(tangent_start);
    v = fk_vec3_cross(tangent_start, u);
    previous = render__add_vertex(mesh, fk_vec3_sub(path[0], fk_vec3_scale(tangent_start, radii[0])));
    for (j = 1; j <= cap_rings; ++j) {
        float angle = 0.5f * RENDER_PI * (float)j / (float)cap_rings;
        fk_vec3 center = fk_vec3_sub(path[0], fk_vec3_scale(tangent_start, radii[0] * cosf(angle)));
        ring = render__add_ring(mesh, center, u, v, radii[0] * sinf(angle), sides);
        if (j == 1) {
            int i;
            for (i = 0; i < sides; ++i) render__add_triangle(mesh, previous, ring + (i + 1) % sides, ring + i);
        } else {
            render__join_rings(mesh, previous, ring, sides);
        }
        previous = ring;
    }

    /* body: `rings` rings per segment, the frame transported from point to point */
    u_previous = u;
    for (k = 0; k < last; ++k) {
        fk_vec3 segment = fk_vec3_normalize(fk_vec3_sub(path[k + 1], path[k]));
        fk_vec3 tangent_next = k + 1 < last
            ? fk_vec3_normalize(fk_vec3_add(segment, fk_vec3_normalize(fk_vec3_sub(path[k + 2], path[k + 1]))))
            : tangent_end;
        for (j = 1; j <= rings; ++j) {
            float s = (float)j / (float)rings;
            fk_vec3 tangent = j == rings ? tangent_next : segment;
            fk_vec3 center = render__lerp(path[k], path[k + 1], s);
            float radius = radii[k] + (radii[k + 1] - radii[k]) * s;
            u = fk_vec3_normalize(fk_vec3_sub(u_previous, fk_vec3_scale(tangent, fk_vec3_dot(tangent, u_previous))));
            v = fk_vec3_cross(tangent, u);
            ring = render__add_ring(mesh, center, u, v, radius, sides);
            render__join_rings(mesh, previous, ring, sides);
            previous = ring;
            u_previous = u;
        }
    }

    /* end cap: rings narrowing to a pole beyond the last point */
    v = fk_vec3_cross(tangent_end, u);
    for (j = cap_rings - 1; j >= 1; --j) {
        float angle = 0.5f * RENDER_PI * (float)j / (float)cap_rings;
        fk_vec3 center = fk_vec3_add(path[last], fk_vec3_scale(tangent_end, radii[last] * cosf(angle)));
        ring = render__add_ring(mesh, center, u, v, radii[last] * sinf(angle), sides);
        render__join_rings(mesh, previous, ring, sides);
        previous = ring;
    }
    {
        int i, pole = render__add_vertex(mesh, fk_vec3_add(path[last], fk_vec3_scale(tangent_end, radii[last])));
        for (i = 0; i < sides; ++i) render__add_triangle(mesh, previous + i, previous + (i + 1) % sides, pole);
    }
    render__compute_normals(mesh, first_vertex, first_triangle);
    return first_vertex;
}

int render_mesh_add_sphere(render_mesh *mesh, fk_vec3 center, float radius, int sides)
{
    return render_mesh_add_tube(mesh, &center, &radius, 1, sides, 1);
}

void render_mesh_paint(render_mesh *mesh, int first, render_color c)
{
    int i;
    if (!mesh->colors) { /* white until painted */
        mesh->colors = (float *)render__resize(NULL, (size_t)(mesh->vertex_capacity > 0 ? mesh->vertex_capacity : 1) * 3 * sizeof(float));
        for (i = 0; i < 3 * mesh->vertex_count; ++i) mesh->colors[i] = 1.0f;
    }
    for (i = first; i < mesh->vertex_count; ++i) {
        mesh->colors[3 * i] = c.r;
        mesh->colors[3 * i + 1] = c.g;
        mesh->colors[3 * i + 2] = c.b;
    }
}

void render_mesh_free(render_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->colors);
    free(mesh->triangles);
    memset(mesh, 0, sizeof *mesh);
}

float *render_cor_centers(int vertex_count, const float *positions, int influences, const uint16_t *joints,
                          const float *weights, int triangle_count, const int *triangles)
{
    fk_cor_desc desc;
    size_t bytes = 0, i;
    fk_result result;
    uint32_t *indices = (uint32_t *)malloc(3 * sizeof(uint32_t) * (size_t)(triangle_count > 0 ? triangle_count : 1));
    float *centers = (float *)malloc(3 * sizeof(float) * (size_t)(vertex_count > 0 ? vertex_count : 1));
    void *workspace = NULL;
    int out_of_memory = !indices || !centers;
    memset(&desc, 0, sizeof desc); /* sigma, epsilon and sampling: the paper's defaults */
    desc.vertex_count = vertex_count;
    desc.positions = positions;
    desc.influences = influences;
    desc.joints = joints;
    desc.weights = weights;
    desc.triangle_count = triangle_count;
    desc.indices = indices;
    /* the library takes uint32_t indices; a negative one becomes too large and is refused */
    for (i = 0; !out_of_memory && i < 3 * (size_t)triangle_count; ++i) indices[i] = (uint32_t)triangles[i];
    result = out_of_memory ? FK_OK : fk_cor_workspace_size(&desc, &bytes);
    if (result == FK_OK && !out_of_memory) out_of_memory = !(workspace = malloc(bytes > 0 ? bytes : 1));
    if (result == FK_OK && !out_of_memory) result = fk_cor_centers(&desc, 0, vertex_count, workspace, bytes, centers, 0);
    if (result != FK_OK || out_of_memory) {
        fprintf(stderr, "render: centres of rotation: %s\n", out_of_memory ? "out of memory" : fk_result_description(result));
        free(centers);
        centers = NULL;
    }
    free(workspace);
    free(indices);
    return centers;
}

void render_bounds_add(fk_vec3 *lo, fk_vec3 *hi, const float *points, int count)
{
    int i;
    for (i = 0; i < count; ++i) {
        const float *p = points + 3 * i;
        if (p[0] < lo->x) lo->x = p[0];
        if (p[1] < lo->y) lo->y = p[1];
        if (p[2] < lo->z) lo->z = p[2];
        if (p[0] > hi->x) hi->x = p[0];
        if (p[1] > hi->y) hi->y = p[1];
        if (p[2] > hi->z) hi->z = p[2];
    }
}

/* ---- Camera ------------------------------------------------------------------------ */

render_camera render_camera_frame_box(fk_vec3 lo, fk_vec3 hi, float yaw_degrees, float pitch_degrees,
                                      float fov_y_degrees, float aspect)
{
    const float fill = 0.86f; /* the box may use this much of the half-width and half-height */
    render_camera camera;
    float yaw = yaw_degrees * RENDER_PI / 180.0f, pitch = pitch_degrees * RENDER_PI / 180.0f;
    fk_vec3 center = fk_vec3_scale(fk_vec3_add(lo, hi), 0.5f);
    fk_vec3 toward_eye = fk_vec3_make(sinf(yaw) * cosf(pitch), sinf(pitch), cosf(yaw) * cosf(pitch));
    float distance = 0.0f, half_height = 1e-6f, depth_extent = 0.0f;
    int corner;

    camera.forward = fk_vec3_scale(toward_eye, -1.0f);
    camera.right = fk_vec3_normalize(fk_vec3_cross(camera.forward, fk_vec3_make(0, 1, 0)));
    camera.up = fk_vec3_cross(camera.right, camera.forward);
    camera.aspect = aspect;
    camera.focal = fov_y_degrees > 0.0f ? 1.0f / tanf(0.5f * fov_y_degrees * RENDER_PI / 180.0f) : 0.0f;

    /* the nearest distance from the center at which every corner is inside the view */
    for (corner = 0; corner < 8; ++corner) {
        fk_vec3 p = fk_vec3_make(corner & 1 ? hi.x : lo.x, corner & 2 ? hi.y : lo.y, corner & 4 ? hi.z : lo.z);
        fk_vec3 q = fk_vec3_sub(p, center);
        float x = fabsf(fk_vec3_dot(q, camera.right)), y = fabsf(fk_vec3_dot(q, camera.up));
        float z = fk_vec3_dot(q, camera.forward);
        float need_x = camera.focal * x / (aspect * fill) - z, need_y = camera.focal * y / fill - z;
        if (need_x > distance) distance = need_x;
        if (need_y > distance) distance = need_y;
        if (-z > depth_extent) depth_extent = -z;
        if (y / fill > half_height) half_height = y / fill;
        if (x / (aspect * fill) > half_height) half_height = x / (aspect * fill);
    }
    if (camera.focal == 0.0f) distance = 2.0f * depth_extent + 1.0f; /* orthographic: anywhere in front */
    if (distance < depth_extent * 1.05f + 1e-3f) distance = depth_extent * 1.05f + 1e-3f;
    camera.half_height = half_height;
    camera.eye = fk_vec3_add(center, fk_vec3_scale(toward_eye, distance));
    return camera;
}

/* ---- Sheets and panels ----------------------------------------------------------- */

struct render_panel {
    render_sheet *sheet;
    int x, y, width, height;       /* in the sheet, final pixels */
    int ss_width, ss_height;       /* supersampled size */
    float *color;                  /* linear RGB per sample */
    float *depth;                  /* view depth per sample */
    int overlay;                   /* depth was cleared for the skeleton */
};

struct render_sheet {
    int width, height;
    int columns, rows, panel_width, panel_height, gap, title_height;
    float scale;
    unsigned char *rgb;
    render_panel panel;            /* the one panel being drawn; its buffers are reused */
};

static float render__to_linear(float c) { return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f); }

static float render__to_srgb(float c)
{
    if (c <= 0.0f) return 0.0f;
    if (c >= 1.0f) return 1.0f;
    return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

static render_color render__linear(render_color c)
{
    render_color linear;
    linear.r = render__to_linear(c.r);
    linear.g = render__to_linear(c.g);
    linear.b = render__to_linear(c.b);
    return linear;
}

static int render__scaled(int pixels, float scale) { return (int)lroundf((float)pixels * scale); }

/* Opens a canvas over the sheet rectangle (x, y, width, height). */
static render_panel *render__open(render_sheet *sheet, int x, int y, int width, int height, int plain)
{
    render_panel *panel = &sheet->panel;
    int row, column;
    panel->sheet = sheet;
    panel->x = x;
    panel->y = y;
    panel->width = width;
    panel->height = height;
    panel->ss_width = width * RENDER_SUPERSAMPLE;
    panel->ss_height = height * RENDER_SUPERSAMPLE;
    panel->overlay = 0;
    for (row = 0; row < panel->ss_height; ++row) {
        /* a soft studio backdrop, lighter at the top; plain white for the title */
        float s = (float)row / (float)panel->ss_height;
        render_color top = {0.985f, 0.988f, 0.992f}, bottom = {0.885f, 0.90f, 0.92f};
        render_color c = plain ? (render_color){1, 1, 1}
                               : render__linear((render_color){top.r + (bottom.r - top.r) * s, top.g + (bottom.g - top.g) * s,
                                                               top.b + (bottom.b - top.b) * s});
        float *pixel = panel->color + (size_t)row * (size_t)panel->ss_width * 3;
        for (column = 0; column < panel->ss_width; ++column) {
            pixel[3 * column] = c.r;
            pixel[3 * column + 1] = c.g;
            pixel[3 * column + 2] = c.b;
        }
    }
    for (row = 0; row < panel->ss_width * panel->ss_height; ++row) panel->depth[row] = INFINITY;
    return panel;
}

render_sheet *render_sheet_create(int columns, int rows, int panel_width, int panel_height,
                                  const char *title, float scale)
{
    render_sheet *sheet = (render_sheet *)calloc(1, sizeof *sheet);
    size_t samples;
    if (!sheet) return NULL;
    sheet->scale = scale;
    sheet->columns = columns;
    sheet->rows = rows;
    sheet->panel_width = render__scaled(panel_width, scale);
    sheet->panel_height = render__scaled(panel_height, scale);
    sheet->gap = render__scaled(6, scale);
    sheet->title_height = title ? render__scaled(40, scale) : 0;
    sheet->width = columns * sheet->panel_width + (columns + 1) * sheet->gap;
    sheet->height = sheet->title_height + rows * sheet->panel_height + (rows + 1) * sheet->gap;
    sheet->rgb = (unsigned char *)malloc((size_t)sheet->width * (size_t)sheet->height * 3);
    /* one buffer serves every panel and the title band, so it fits the larger */
    samples = (size_t)sheet->width * (size_t)sheet->title_height;
    if (samples < (size_t)sheet->panel_width * (size_t)sheet->panel_height)
        samples = (size_t)sheet->panel_width * (size_t)sheet->panel_height;
    samples *= RENDER_SUPERSAMPLE * RENDER_SUPERSAMPLE;
    sheet->panel.color = (float *)malloc(samples * 3 * sizeof(float));
    sheet->panel.depth = (float *)malloc(samples * sizeof(float));
    if (!sheet->rgb || !sheet->panel.color || !sheet->panel.depth) {
        render_sheet_destroy(sheet);
        return NULL;
    }
    memset(sheet->rgb, 255, (size_t)sheet->width * (size_t)sheet->height * 3);
    if (title) {
        render_panel *band = render__open(sheet, 0, 0, sheet->width, sheet->title_height, 1);
        render_draw_label(band, 10.0f, 11.0f, 1.75f, RENDER_INK, "%s", title);
        render_panel_end(band);
    }
    return sheet;
}

void render_sheet_destroy(render_sheet *sheet)
{
    if (!sheet) return;
    free(sheet->rgb);
    free(sheet->panel.color);
    free(sheet->panel.depth);
    free(sheet);
}

void render_panel_size(const render_panel *panel, float *width, float *height)
{
    *width = (float)panel->width / panel->sheet->scale;
    *height = (float)panel->height / panel->sheet->scale;
}

float render_sheet_aspect(const render_sheet *sheet) { return (float)sheet->panel_width / (float)sheet->panel_height; }
int render_sheet_width(const render_sheet *sheet) { return sheet->width; }
int render_sheet_height(const render_sheet *sheet) { return sheet->height; }

render_panel *render_panel_begin(render_sheet *sheet, int column, int row)
{
    int x = sheet->gap + column * (sheet->panel_width + sheet->gap);
    int y = sheet->title_height + sheet->gap + row * (sheet->panel_height + sheet->gap);
    return render__open(sheet, x, y, sheet->panel_width, sheet->panel_height, 0);
}

void render_panel_end(render_panel *panel)
{
    /* average each pixel's samples in linear light, then encode as sRGB */
    const int s = RENDER_SUPERSAMPLE;
    render_sheet *sheet = panel->sheet;
    int x, y, i, j, c;
    for (y = 0; y < panel->height; ++y) {
        unsigned char *out = sheet->rgb + ((size_t)(panel->y + y) * (size_t)sheet->width + (size_t)panel->x) * 3;
        for (x = 0; x < panel->width; ++x) {
            for (c = 0; c < 3; ++c) {
                float sum = 0.0f;
                for (j = 0; j < s; ++j)
                    for (i = 0; i < s; ++i)
                        sum += panel->color[((size_t)(y * s + j) * (size_t)panel->ss_width + (size_t)(x * s + i)) * 3 + (size_t)c];
                out[3 * x + c] = (unsigned char)lroundf(255.0f * render__to_srgb(sum / (float)(s * s)));
            }
        }
    }
}

static int render__make_folders(const char *path)
{
    char partial[1024];
    size_t i, length = strlen(path);
    if (length >= sizeof partial) return -1;
    for (i = 1; i <= length; ++i) {
        if (path[i] == '/' || path[i] == '\0') {
            memcpy(partial, path, i);
            partial[i] = '\0';
            if (mkdir(partial, 0777) != 0 && errno != EEXIST) return -1;
        }
    }
    return 0;
}

int render_sheet_save(const render_sheet *sheet, const render_options *options, const char *name)
{
    char path[1024];
    int written = snprintf(path, sizeof path, "%s/%s", options->out_dir, name);
    if (written < 0 || (size_t)written >= sizeof path || render__make_folders(options->out_dir) != 0) {
        fprintf(stderr, "cannot create the folder '%s'\n", options->out_dir);
        return -1;
    }
    if (!stbi_write_png(path, sheet->width, sheet->height, 3, sheet->rgb, sheet->width * 3)) {
        fprintf(stderr, "cannot write '%s'\n", path);
        return -1;
    }
    printf("wrote %s %dx%d\n", path, sheet->width, sheet->height);
    return 0;
}

int render_sheet_save_path(const render_sheet *sheet, const char *path)
{
    char directory[1024];
    const char *slash = strrchr(path, '/');
    render_options options;
    size_t length = slash ? (size_t)(slash - path) : 0;
    memset(&options, 0, sizeof options);
    options.scale = 1.0f;
    options.out_dir = slash ? (length ? directory : "/") : ".";
    if (length >= sizeof directory) length = sizeof directory - 1;
    memcpy(directory, path, length);
    directory[length] = '\0';
    return render_sheet_save(sheet, &options, slash ? slash + 1 : path);
}

/* ---- Projection ------------------------------------------------------------------- */

/* A point in supersampled screen coordinates, with its view depth. */
typedef struct render__screen {
    float x, y, depth;
} render__screen;

static render__screen render__to_screen(const render_panel *panel, const render_camera *camera, fk_vec3 p)
{
    render__screen s;
    fk_vec3 q = fk_vec3_sub(p, camera->eye);
    float vx = fk_vec3_dot(q, camera->right), vy = fk_vec3_dot(q, camera->up), vz = fk_vec3_dot(q, camera->forward);
    float nx, ny;
    if (camera->focal > 0.0f) {
        float z = vz > 1e-4f ? vz : 1e-4f;
        nx = camera->focal * vx / (z * camera->aspect);
        ny = camera->focal * vy / z;
    } else {
        nx = vx / (camera->half_height * camera->aspect);
        ny = vy / camera->half_height;
    }
    s.x = (0.5f + 0.5f * nx) * (float)panel->ss_width;
    s.y = (0.5f - 0.5f * ny) * (float)panel->ss_height;
    s.depth = vz;
    return s;
}

void render_project(const render_panel *panel, const render_camera *camera, fk_vec3 point, float *x, float *y)
{
    render__screen s = render__to_screen(panel, camera, point);
    *x = s.x / (RENDER_SUPERSAMPLE * panel->sheet->scale);
    *y = s.y / (RENDER_SUPERSAMPLE * panel->sheet->scale);
}

/* ---- Shading ------------------------------------------------------------------------ */

/* Three lights fixed to the camera, as in a photo studio: a warm key from the upper
   left, a cool fill from the right and a rim from behind that separates the shape
   from the backdrop. n is a unit normal in view space (z into the screen). */
static render_color render__shade(fk_vec3 n, render_color albedo)
{
    static const float key[3] = {-0.48f, 0.62f, -0.62f}, fill[3] = {0.75f, 0.05f, -0.66f},
                       rim[3] = {0.2f, 0.55f, 0.81f}, half_key[3] = {-0.25f, 0.33f, -0.91f};
    float diffuse_key = n.x * key[0] + n.y * key[1] + n.z * key[2];
    float diffuse_fill = n.x * fill[0] + n.y * fill[1] + n.z * fill[2];
    float rim_light = n.x * rim[0] + n.y * rim[1] + n.z * rim[2];
    float specular = n.x * half_key[0] + n.y * half_key[1] + n.z * half_key[2];
    float sky = 0.5f + 0.5f * n.y; /* hemisphere ambient: more light from above */
    float light;
    render_color c;
    diffuse_key = diffuse_key > 0.0f ? diffuse_key : 0.0f;
    diffuse_fill = diffuse_fill > 0.0f ? diffuse_fill : 0.0f;
    rim_light = rim_light > 0.0f ? rim_light * rim_light * rim_light : 0.0f;
    specular = specular > 0.0f ? powf(specular, 48.0f) * 0.22f : 0.0f;
    light = 0.10f + 0.16f * sky + 0.92f * diffuse_key + 0.25f * diffuse_fill + 0.35f * rim_light;
    c.r = albedo.r * light + specular;
    c.g = albedo.g * light + specular;
    c.b = albedo.b * light + specular;
    return c;
}

/* A triangle's corner: world position, world normal, linear colour. */
typedef struct render__corner {
    fk_vec3 position, normal;
    render_color color;
} render__corner;

static void render__triangle(render_panel *panel, const render_camera *camera, const render__corner corner[3])
{
    render__screen s[3];
    float inverse_depth[3], area, min_x, max_x, min_y, max_y;
    int x0, x1, y0, y1, x, y, k;
    fk_vec3 view_normal[3];
    for (k = 0; k < 3; ++k) {
        s[k] = render__to_screen(panel, camera, corner[k].position);
        if (s[k].depth <= 1e-4f) return; /* behind the camera: the examples never need clipping */
        inverse_depth[k] = camera->focal > 0.0f ? 1.0f / s[k].depth : 1.0f;
        view_normal[k] = fk_vec3_make(fk_vec3_dot(corner[k].normal, camera->right),
                                      fk_vec3_dot(corner[k].normal, camera->up),
                                      fk_vec3_dot(corner[k].normal, camera->forward));
    }
    area = (s[1].x - s[0].x) * (s[2].y - s[0].y) - (s[2].x - s[0].x) * (s[1].y - s[0].y);
    if (fabsf(area) < 1e-8f) return;
    min_x = fminf(s[0].x, fminf(s[1].x, s[2].x));
    max_x = fmaxf(s[0].x, fmaxf(s[1].x, s[2].x));
    min_y = fminf(s[0].y, fminf(s[1].y, s[2].y));
    max_y = fmaxf(s[0].y, fmaxf(s[1].y, s[2].y));
    x0 = (int)fmaxf(0.0f, floorf(min_x));
    y0 = (int)fmaxf(0.0f, floorf(min_y));
    x1 = (int)fminf((float)panel->ss_width - 1.0f, ceilf(max_x));
    y1 = (int)fminf((float)panel->ss_height - 1.0f, ceilf(max_y));
    for (y = y0; y <= y1; ++y) {
        float py = (float)y + 0.5f;
        for (x = x0; x <= x1; ++x) {
            float px = (float)x + 0.5f;
            /* barycentric weights from the sub-triangles' signed areas */
            float b0 = ((s[1].x - px) * (s[2].y - py) - (s[2].x - px) * (s[1].y - py)) / area;
            float b1 = ((s[2].x - px) * (s[0].y - py) - (s[0].x - px) * (s[2].y - py)) / area;
            float b2 = 1.0f - b0 - b1;
            float w0, w1, w2, sum, depth;
            size_t at = (size_t)y * (size_t)panel->ss_width + (size_t)x;
            fk_vec3 n;
            render_color albedo, c;
            if (b0 < 0.0f || b1 < 0.0f || b2 < 0.0f) continue;
            /* perspective-correct interpolation: attributes / depth are linear on screen */
            w0 = b0 * inverse_depth[0];
            w1 = b1 * inverse_depth[1];
            w2 = b2 * inverse_depth[2];
            sum = w0 + w1 + w2;
            depth = camera->focal > 0.0f ? 1.0f / sum : b0 * s[0].depth + b1 * s[1].depth + b2 * s[2].depth;
            if (depth >= panel->depth[at]) continue;
            w0 /= sum;
            w1 /= sum;
            w2 /= sum;
            n = fk_vec3_add(fk_vec3_add(fk_vec3_scale(view_normal[0], w0), fk_vec3_scale(view_normal[1], w1)),
                            fk_vec3_scale(view_normal[2], w2));
            n = fk_vec3_normalize(n);
            if (n.z > 0.0f) n = fk_vec3_scale(n, -1.0f); /* light the inside of open surfaces too */
            albedo.r = w0 * corner[0].color.r + w1 * corner[1].color.r + w2 * corner[2].color.r;
            albedo.g = w0 * corner[0].color.g + w1 * corner[1].color.g + w2 * corner[2].color.g;
            albedo.b = w0 * corner[0].color.b + w1 * corner[1].color.b + w2 * corner[2].color.b;
            c = render__shade(n, albedo);
            panel->depth[at] = depth;
            panel->color[3 * at] = c.r;
            panel->color[3 * at + 1] = c.g;
            panel->color[3 * at + 2] = c.b;
        }
    }
}

void render_draw_mesh(render_panel *panel, const render_camera *camera, const render_mesh *mesh,
                      const float *positions, const float *normals, render_color color)
{
    render_color linear = render__linear(color);
    int i, k;
    if (!positions) positions = mesh->positions;
    if (!normals) normals = mesh->normals;
    panel->overlay = 0;
    for (i = 0; i < mesh->triangle_count; ++i) {
        render__corner corner[3];
        for (k = 0; k < 3; ++k) {
            int v = mesh->triangles[3 * i + k];
            corner[k].position = render__point(positions + 3 * v);
            corner[k].normal = render__point(normals + 3 * v);
            corner[k].color = mesh->colors ? render__linear((render_color){mesh->colors[3 * v], mesh->colors[3 * v + 1],
                                                                           mesh->colors[3 * v + 2]})
                                           : linear;
        }
        render__triangle(panel, camera, corner);
    }
}

void render_draw_ground_shadow(render_panel *panel, const render_camera *camera, fk_vec3 center, float radius)
{
    /* each sample's view ray meets the ground plane y = center.y somewhere; darken
       the backdrop by how close that point is to the center */
    int x, y;
    for (y = 0; y < panel->ss_height; ++y)
        for (x = 0; x < panel->ss_width; ++x) {
            float nx = ((float)x + 0.5f) / (float)panel->ss_width * 2.0f - 1.0f;
            float ny = 1.0f - ((float)y + 0.5f) / (float)panel->ss_height * 2.0f;
            fk_vec3 origin = camera->eye, direction = camera->forward, ground;
            float t, d, darkness;
            size_t at = (size_t)y * (size_t)panel->ss_width + (size_t)x;
            if (camera->focal > 0.0f) {
                direction = fk_vec3_add(direction, fk_vec3_add(fk_vec3_scale(camera->right, nx * camera->aspect / camera->focal),
                                                               fk_vec3_scale(camera->up, ny / camera->focal)));
            } else {
                origin = fk_vec3_add(origin, fk_vec3_add(fk_vec3_scale(camera->right, nx * camera->half_height * camera->aspect),
                                                         fk_vec3_scale(camera->up, ny * camera->half_height)));
            }
            if (fabsf(direction.y) < 1e-6f) continue;
            t = (center.y - origin.y) / direction.y;
            if (t <= 0.0f) continue;
            ground = fk_vec3_add(origin, fk_vec3_scale(direction, t));
            d = fk_vec3_length(fk_vec3_sub(ground, center)) / radius;
            if (d >= 1.0f) continue;
            darkness = 0.45f * (1.0f - d * d) * (1.0f - d * d);
            panel->color[3 * at] *= 1.0f - darkness;
            panel->color[3 * at + 1] *= 1.0f - darkness;
            panel->color[3 * at + 2] *= 1.0f - darkness;
        }
}

/* ---- Skeleton, lines and labels ------------------------------------------------------ */

static void render__begin_overlay(render_panel *panel)
{
    int i;
    if (panel->overlay) return;
    for (i = 0; i < panel->ss_width * panel->ss_height; ++i) panel->depth[i] = INFINITY;
    panel->overlay = 1;
}

void render_draw_bone(render_panel *panel, const render_camera *camera, fk_vec3 from, fk_vec3 to, render_color color)
{
    /* an octahedron: a point at each end and a square waist near the parent end,
       flat-shaded so that its facets read as a bone with a direction */
    fk_vec3 axis = fk_vec3_sub(to, from);
    float length = fk_vec3_length(axis);
    fk_vec3 direction, u, v, waist[4];
    render_color linear = render__linear(color);
    int k, side;
    if (length < 1e-6f) return;
    render__begin_overlay(panel);
    direction = fk_vec3_scale(axis, 1.0f / length);
    u = fk_vec3_scale(render__perpendicular(direction), 0.07f * length);
    v = fk_vec3_scale(fk_vec3_cross(direction, render__perpendicular(direction)), 0.07f * length);
    for (k = 0; k < 4; ++k) {
        float angle = 0.5f * RENDER_PI * (float)k + 0.25f * RENDER_PI;
        waist[k] = fk_vec3_add(fk_vec3_add(from, fk_vec3_scale(axis, 0.15f)),
                               fk_vec3_add(fk_vec3_scale(u, cosf(angle)), fk_vec3_scale(v, sinf(angle))));
    }
    for (k = 0; k < 4; ++k) {
        for (side = 0; side < 2; ++side) {
            render__corner corner[3];
            fk_vec3 tip = side ? to : from;
            fk_vec3 a = waist[k], b = waist[(k + 1) % 4];
            fk_vec3 normal = fk_vec3_normalize(fk_vec3_cross(fk_vec3_sub(b, a), fk_vec3_sub(tip, a)));
            int i;
            if (fk_vec3_dot(normal, fk_vec3_sub(a, from)) < 0.0f) normal = fk_vec3_scale(normal, -1.0f);
            corner[0].position = a;
            corner[1].position = b;
            corner[2].position = tip;
            for (i = 0; i < 3; ++i) {
                corner[i].normal = normal;
                corner[i].color = linear;
            }
            render__triangle(panel, camera, corner);
        }
    }
}

/* A filled disc in supersampled pixels, over everything. */
static void render__disc(render_panel *panel, float cx, float cy, float radius, render_color linear)
{
    int x, y;
    int x0 = (int)fmaxf(0.0f, cx - radius), x1 = (int)fminf((float)panel->ss_width - 1.0f, cx + radius);
    int y0 = (int)fmaxf(0.0f, cy - radius), y1 = (int)fminf((float)panel->ss_height - 1.0f, cy + radius);
    for (y = y0; y <= y1; ++y)
        for (x = x0; x <= x1; ++x) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            size_t at = (size_t)y * (size_t)panel->ss_width + (size_t)x;
            if (dx * dx + dy * dy > radius * radius) continue;
            panel->color[3 * at] = linear.r;
            panel->color[3 * at + 1] = linear.g;
            panel->color[3 * at + 2] = linear.b;
        }
}

void render_draw_joint(render_panel *panel, const render_camera *camera, fk_vec3 at, float radius_pixels,
                       render_color color)
{
    render__screen s = render__to_screen(panel, camera, at);
    float r = radius_pixels * panel->sheet->scale * RENDER_SUPERSAMPLE;
    render__disc(panel, s.x, s.y, r, render__linear((render_color){1, 1, 1}));
    render__disc(panel, s.x, s.y, r - 1.2f * RENDER_SUPERSAMPLE * panel->sheet->scale, render__linear(color));
}

void render_draw_skeleton(render_panel *panel, const render_camera *camera, const fk_vec3 *joints,
                          const int *parents, int joint_count)
{
    int i;
    render__begin_overlay(panel);
    for (i = 0; i < joint_count; ++i)
        if (parents[i] >= 0) render_draw_bone(panel, camera, joints[parents[i]], joints[i], RENDER_BONE);
    for (i = 0; i < joint_count; ++i) render_draw_joint(panel, camera, joints[i], 3.0f, RENDER_JOINT);
}

void render_draw_line(render_panel *panel, const render_camera *camera, fk_vec3 from, fk_vec3 to,
                      float width_pixels, float dash_pixels, render_color color)
{
    /* every sample within half the width of the segment, with round ends */
    render__screen a = render__to_screen(panel, camera, from), b = render__to_screen(panel, camera, to);
    float ss = RENDER_SUPERSAMPLE * panel->sheet->scale;
    float half = 0.5f * width_pixels * ss, dash = dash_pixels * ss;
    float dx = b.x - a.x, dy = b.y - a.y, length_squared = dx * dx + dy * dy, length = sqrtf(length_squared);
    int x, y;
    int x0 = (int)fmaxf(0.0f, fminf(a.x, b.x) - half), x1 = (int)fminf((float)panel->ss_width - 1.0f, fmaxf(a.x, b.x) + half);
    int y0 = (int)fmaxf(0.0f, fminf(a.y, b.y) - half), y1 = (int)fminf((float)panel->ss_height - 1.0f, fmaxf(a.y, b.y) + half);
    render_color linear = render__linear(color);
    for (y = y0; y <= y1; ++y)
        for (x = x0; x <= x1; ++x) {
            float px = (float)x + 0.5f - a.x, py = (float)y + 0.5f - a.y;
            float t = length_squared > 0.0f ? (px * dx + py * dy) / length_squared : 0.0f;
            float ex, ey;
            size_t at = (size_t)y * (size_t)panel->ss_width + (size_t)x;
            t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
            ex = px - t * dx;
            ey = py - t * dy;
            if (ex * ex + ey * ey > half * half) continue;
            if (dash > 0.0f && fmodf(t * length, 2.0f * dash) > dash) continue;
            panel->color[3 * at] = linear.r;
            panel->color[3 * at + 1] = linear.g;
            panel->color[3 * at + 2] = linear.b;
        }
}

void render_draw_skeleton_lines(render_panel *panel, const render_camera *camera, const fk_vec3 *joints,
                                const int *parents, int joint_count, render_color color)
{
    int i;
    for (i = 0; i < joint_count; ++i)
        if (parents[i] >= 0) render_draw_line(panel, camera, joints[parents[i]], joints[i], 2.0f, 5.0f, color);
    for (i = 0; i < joint_count; ++i) render_draw_joint(panel, camera, joints[i], 3.0f, color);
}

void render_draw_axes(render_panel *panel, const render_camera *camera, fk_vec3 at, float length)
{
    render_draw_line(panel, camera, at, fk_vec3_add(at, fk_vec3_make(length, 0, 0)), 2.0f, 0.0f, (render_color){0.85f, 0.2f, 0.2f});
    render_draw_line(panel, camera, at, fk_vec3_add(at, fk_vec3_make(0, length, 0)), 2.0f, 0.0f, (render_color){0.2f, 0.65f, 0.25f});
    render_draw_line(panel, camera, at, fk_vec3_add(at, fk_vec3_make(0, 0, length)), 2.0f, 0.0f, (render_color){0.2f, 0.35f, 0.85f});
}

/* Fills the text's strokes, each grown by `grow` samples on every side. Returns
   how far, in samples, the strokes reach past the panel's edges (0 when they fit). */
static int render__text(render_panel *panel, float x, float y, int unit, int grow, render_color linear, char *text)
{
    /* stb_easy_font lays the text out as quads in font units (about 270 bytes of
       quads per character); each unit becomes a whole number of samples so that
       strokes keep an even width */
    char quads[48 * 1024];
    float origin_x = x * panel->sheet->scale * RENDER_SUPERSAMPLE, origin_y = y * panel->sheet->scale * RENDER_SUPERSAMPLE;
    int q, overflow = 0, quad_count = stb_easy_font_print(0, 0, text, NULL, quads, (int)sizeof quads);
    for (q = 0; q < quad_count; ++q) {
        const float *corner = (const float *)(quads + (size_t)q * 64); /* 4 vertices of x y z rgba */
        int qx0 = (int)(origin_x + corner[0] * (float)unit) - grow, qy0 = (int)(origin_y + corner[1] * (float)unit) - grow;
        int qx1 = (int)(origin_x + corner[8] * (float)unit) + grow, qy1 = (int)(origin_y + corner[9] * (float)unit) + grow;
        int px, py, past = qx1 - panel->ss_width > qy1 - panel->ss_height ? qx1 - panel->ss_width : qy1 - panel->ss_height;
        if (-qx0 > past) past = -qx0;
        if (-qy0 > past) past = -qy0;
        if (past > overflow) overflow = past;
        for (py = qy0 < 0 ? 0 : qy0; py < qy1 && py < panel->ss_height; ++py)
            for (px = qx0 < 0 ? 0 : qx0; px < qx1 && px < panel->ss_width; ++px) {
                size_t at = (size_t)py * (size_t)panel->ss_width + (size_t)px;
                panel->color[3 * at] = linear.r;
                panel->color[3 * at + 1] = linear.g;
                panel->color[3 * at + 2] = linear.b;
            }
    }
    return overflow;
}

static int render__label(render_panel *panel, float x, float y, float size, render_color color, int outlined,
                         const char *format, va_list args)
{
    char text[160];
    int unit = (int)lroundf(4.0f * size * panel->sheet->scale); /* samples per font unit */
    int overflow;
    if (unit < 1) unit = 1;
    vsnprintf(text, sizeof text, format, args);
    if (outlined) render__text(panel, x, y, unit, unit + 1, render__linear((render_color){1, 1, 1}), text);
    overflow = render__text(panel, x, y, unit, 0, render__linear(color), text);
    /* a label cut off at the edge is a layout mistake that looks deliberate in the
       picture; say so where tests/test_examples.c and `make demo` see it */
    if (overflow > 0)
        fprintf(stderr, "render: text cut off %d px past the panel's edge: \"%s\"\n",
                (int)ceilf((float)overflow / (RENDER_SUPERSAMPLE * panel->sheet->scale)), text);
    return (int)lroundf((float)(stb_easy_font_height(text) * unit) / (RENDER_SUPERSAMPLE * panel->sheet->scale));
}

int render_draw_label(render_panel *panel, float x, float y, float size, render_color color, const char *format, ...)
{
    va_list args;
    int height;
    va_start(args, format);
    height = render__label(panel, x, y, size, color, 0, format, args);
    va_end(args);
    return height;
}

int render_draw_tag(render_panel *panel, float x, float y, float size, render_color color, const char *format, ...)
{
    va_list args;
    int height;
    va_start(args, format);
    height = render__label(panel, x, y, size, color, 1, format, args);
    va_end(args);
    return height;
}
