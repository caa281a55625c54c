/* render.h - the examples' small software renderer: shaded, anti-aliased pictures
   of skinned meshes and skeletons, laid out as a contact sheet and saved as PNG.

   It is not part of fk_lbs.h (which does no I/O); it is here so that every example
   can show its result the same way. A picture is made like this:

       render_sheet *sheet = render_sheet_create(3, 2, 320, 280, "Title", options.scale);
       render_camera camera = render_camera_frame_box(lo, hi, 30, 15, 35, render_sheet_aspect(sheet));
       render_panel *panel = render_panel_begin(sheet, column, row);
       render_draw_mesh(panel, &camera, &mesh, skinned_positions, skinned_normals, RENDER_CLAY);
       render_draw_skeleton(panel, &camera, joints, parents, joint_count);
       render_draw_label(panel, 8, 8, 1, RENDER_INK, "rest pose");
       render_panel_end(panel);
       render_sheet_save(sheet, &options, "picture.png");

   Each panel is drawn at RENDER_SUPERSAMPLE times its size into a colour and depth
   buffer and averaged down when it ends, which smooths every edge (triangles,
   skeleton, text). Meshes are z-buffered and Phong-shaded from their per-vertex
   normals; the skeleton is drawn over them so it is never hidden. Text uses
   stb_easy_font and PNG files stb_image_write (Debian package libstb-dev).

   render.c uses fk_lbs.h's vector and quaternion functions, so the program it is
   linked into defines FK_LBS_IMPLEMENTATION in one of its files (every example does).

   Coordinates: world space is right-handed with y up. Panel coordinates (labels,
   render_project) are pixels from the panel's top-left corner at scale 1, so that a
   layout stays the same when --scale enlarges the picture. */
#ifndef EXAMPLES_RENDER_H
#define EXAMPLES_RENDER_H

#include "fk_lbs.h"

/* Samples per pixel along each axis: 3 gives 9 samples, smooth at a modest cost. */
#define RENDER_SUPERSAMPLE 3

typedef struct render_color {
    float r, g, b; /* 0..1, sRGB */
} render_color;

/* A palette, so that every picture speaks the same visual language. */
#define RENDER_CLAY      ((render_color){0.80f, 0.62f, 0.50f}) /* a warm mesh */
#define RENDER_ROSE      ((render_color){0.84f, 0.52f, 0.56f}) /* a mesh that goes wrong */
#define RENDER_PORCELAIN ((render_color){0.80f, 0.80f, 0.80f}) /* a neutral mesh under a skeleton */
#define RENDER_STEEL     ((render_color){0.50f, 0.63f, 0.80f}) /* a second mesh to compare */
#define RENDER_BONE      ((render_color){0.98f, 0.55f, 0.10f}) /* skeleton bones */
#define RENDER_JOINT     ((render_color){0.12f, 0.14f, 0.20f}) /* joint dots and names */
#define RENDER_GHOST     ((render_color){0.50f, 0.52f, 0.56f}) /* an earlier state, for reference */
#define RENDER_INK       ((render_color){0.13f, 0.14f, 0.16f}) /* labels */
#define RENDER_SOFT_INK  ((render_color){0.38f, 0.40f, 0.44f}) /* secondary labels */
#define RENDER_ALERT     ((render_color){0.85f, 0.12f, 0.15f}) /* what is wrong */
#define RENDER_GOOD      ((render_color){0.10f, 0.55f, 0.25f}) /* what is right */

/* ---- Command line ---------------------------------------------------------------- */

typedef struct render_options {
    const char *out_dir; /* where pictures go; default "out" */
    float scale;         /* multiplies every picture's size; default 1 */
} render_options;

/* Parses --out DIR, --scale F and --help. Returns 0 to go on, 1 when the program
   should exit successfully (help was printed), -1 on a bad argument (usage printed). */
int render_parse_options(int argc, char **argv, const char *about, render_options *options);

/* ---- Triangle meshes ---------------------------------------------------------------- */

/* A triangle mesh that owns its arrays (grown with realloc). Colours are optional
   per-vertex sRGB triples; when absent the mesh is drawn in one colour. */
typedef struct render_mesh {
    float *positions;  /* x y z per vertex */
    float *normals;    /* unit normal per vertex */
    float *colors;     /* r g b per vertex, or NULL */
    int vertex_count, vertex_capacity;
    int *triangles;    /* three vertex indices per triangle, counter-clockwise seen from outside */
    int triangle_count, triangle_capacity;
} render_mesh;

/* Adds a closed tube swept along a polyline: a circle of radii[k] around point
   path[k], joined smoothly and capped with half-spheres at both ends. sides is the
   number of vertices around; rings is the number of rings per path segment. Two
   points make a capsule. Returns the index of the first vertex added. */
int render_mesh_add_tube(render_mesh *mesh, const fk_vec3 *path, const float *radii, int path_count,
                         int sides, int rings);

/* Adds a sphere (a closed tube of one point would be a sphere too; this is clearer). */
int render_mesh_add_sphere(render_mesh *mesh, fk_vec3 center, float radius, int sides);

/* Gives every vertex from first on the colour c (allocating the colour array). */
void render_mesh_paint(render_mesh *mesh, int first, render_color c);

void render_mesh_free(render_mesh *mesh);

/* Centres of rotation for skinning a mesh with fk_skin_cor(): fk_cor_centers()
   over every vertex with the paper's defaults, its workspace allocated here.
   triangles are three vertex indices each, as render_mesh keeps them. Returns
   x y z per vertex (free() them), or NULL when memory runs out or the data is
   bad (with a message on stderr). */
float *render_cor_centers(int vertex_count, const float *positions, int influences, const uint16_t *joints,
                          const float *weights, int triangle_count, const int *triangles);

/* Grows the box [lo, hi] to hold count points (x y z each). */
void render_bounds_add(fk_vec3 *lo, fk_vec3 *hi, const float *points, int count);

/* ---- Camera ------------------------------------------------------------------------ */

typedef struct render_camera {
    fk_vec3 eye;                  /* position */
    fk_vec3 right, up, forward;   /* orthonormal view basis; forward points into the scene */
    float focal;                  /* perspective: 1 / tan(fov_y / 2); 0 for orthographic */
    float half_height;            /* orthographic: half the visible height in world units */
    float aspect;                 /* width / height of the panels it is made for */
} render_camera;

/* A camera that looks at the box [lo, hi] from the direction given by yaw (degrees
   about y, 0 = looking along -z from +z) and pitch (degrees, positive looks down),
   placed so that the whole box fills the panel with a small margin.
   fov_y_degrees > 0 gives a perspective camera, 0 an orthographic one. */
render_camera render_camera_frame_box(fk_vec3 lo, fk_vec3 hi, float yaw_degrees, float pitch_degrees,
                                      float fov_y_degrees, float aspect);

/* ---- Contact sheets and panels ---------------------------------------------------- */

typedef struct render_sheet render_sheet;
typedef struct render_panel render_panel;

/* A picture of columns x rows panels of panel_width x panel_height pixels each
   (times scale), under a title band. Returns NULL when memory runs out. */
render_sheet *render_sheet_create(int columns, int rows, int panel_width, int panel_height,
                                  const char *title, float scale);
float render_sheet_aspect(const render_sheet *sheet);
int render_sheet_width(const render_sheet *sheet);
int render_sheet_height(const render_sheet *sheet);

/* Writes the sheet as PNG to options->out_dir/name (creating the folder) and prints
   "wrote PATH WIDTHxHEIGHT". Returns 0 on success, -1 on failure (with a message). */
int render_sheet_save(const render_sheet *sheet, const render_options *options, const char *name);
/* The same, to a path given whole ("out/mocap.png", or a bare name for the current
   folder), as a --png option takes it. */
int render_sheet_save_path(const render_sheet *sheet, const char *path);
void render_sheet_destroy(render_sheet *sheet);

/* Starts drawing the panel at (column, row), cleared to the background. Only one
   panel of a sheet is open at a time; render_panel_end() puts it into the sheet. */
render_panel *render_panel_begin(render_sheet *sheet, int column, int row);
void render_panel_end(render_panel *panel);

/* The panel's size in panel coordinates (the size given to render_sheet_create). */
void render_panel_size(const render_panel *panel, float *width, float *height);

/* Draws a mesh, z-buffered and Phong-shaded. positions and normals replace the
   mesh's own (pass skinned ones) or are NULL to draw the mesh as it is. The
   mesh's per-vertex colours are used when it has them, else color. */
void render_draw_mesh(render_panel *panel, const render_camera *camera, const render_mesh *mesh,
                      const float *positions, const float *normals, render_color color);

/* A soft round shadow on the ground plane y = center.y, to stand a figure on; draw
   it first, before the meshes. */
void render_draw_ground_shadow(render_panel *panel, const render_camera *camera, fk_vec3 center, float radius);

/* Draws a skeleton over everything drawn so far: each joint with a parent gets a
   shaded octahedral bone from the parent's position to its own, every joint a dot. */
void render_draw_skeleton(render_panel *panel, const render_camera *camera, const fk_vec3 *joints,
                          const int *parents, int joint_count);

/* The pieces render_draw_skeleton() is made of, for pictures that need them apart. */
void render_draw_bone(render_panel *panel, const render_camera *camera, fk_vec3 from, fk_vec3 to,
                      render_color color);
void render_draw_joint(render_panel *panel, const render_camera *camera, fk_vec3 at, float radius_pixels,
                       render_color color);

/* A straight line over everything, width in pixels (at scale 1); dashed if dash_pixels > 0. */
void render_draw_line(render_panel *panel, const render_camera *camera, fk_vec3 from, fk_vec3 to,
                      float width_pixels, float dash_pixels, render_color color);

/* A skeleton as thin lines, for showing an earlier state behind the current one. */
void render_draw_skeleton_lines(render_panel *panel, const render_camera *camera, const fk_vec3 *joints,
                                const int *parents, int joint_count, render_color color);

/* Three short axes (x red, y green, z blue) at a point, to mark an origin. */
void render_draw_axes(render_panel *panel, const render_camera *camera, fk_vec3 at, float length);

/* Text at (x, y) in panel coordinates; size 1 is the normal label, 2 a heading. Returns the
   height the text took, to place the next line. Text that runs past the panel's edge
   (or the sheet's, for the title) is cut off there, and a line on stderr says so:
   "render: text cut off N px past the panel's edge: ...". */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
int render_draw_label(render_panel *panel, float x, float y, float size, render_color color,
                      const char *format, ...);

/* The same with a white outline, for text over shapes (names next to joints). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
int render_draw_tag(render_panel *panel, float x, float y, float size, render_color color,
                    const char *format, ...);

/* Where a world point lands in panel coordinates (for placing a label next to it). */
void render_project(const render_panel *panel, const render_camera *camera, fk_vec3 point, float *x, float *y);

#endif /* EXAMPLES_RENDER_H */
