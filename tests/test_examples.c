/* test_examples.c - the examples run, draw real pictures, and show what they claim.

   Runs each example program (built by `make examples` into EXAMPLES_BUILD_DIR) with
   --out into a scratch folder, and reads back every picture it says it wrote
   ("wrote PATH WIDTHxHEIGHT") with stb_image from Debian's libstb-dev:
     - the PNG decodes and has the size the program reported;
     - it is not empty: more than 1% of it is solid shapes standing out from the
       backdrop (labels alone make about 0.15%; 0.5% for ik's thin arm);
     - no label runs past its panel's edge (the renderer says so on stderr);
     - the committed copy in docs/images/ has the same size and is under 300 KB,
       so that `make demo-images` has been run since the layout last changed;
   and checks the claim of lbs_vs_dqs: under a twist, linear blend skinning shrinks
   the joint (to almost nothing at 180 degrees) while dual quaternion skinning keeps
   its radius, read from the "joint_radius" lines the example prints, and beside
   them skinning with centres of rotation keeps the radius and bulges less than
   DQS on a bend ("compare" lines); the claims
   of squash_stretch (the tube reaches where the scaled bone ends) and of toolkit
   (the wrist on its IK target, the line of sight through the aim target, masked
   layers that do not mix, root motion without drift); and the claim of threads
   (which draws nothing): a skinning call split over threads writes the bits of
   one call, for LBS and DQS. */
#define _POSIX_C_SOURCE 200809L /* popen, stat */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h> /* a system header: the project's warning flags do not reach it */

#ifndef EXAMPLES_BUILD_DIR
#define EXAMPLES_BUILD_DIR "build"
#endif
#define SCRATCH EXAMPLES_BUILD_DIR "/test_examples_out"
#define MAX_OUTPUT 16384

/* Each example that draws, with the share of its pictures that solid shapes must
   cover (see solid_share()): ik's thin arm draws 0.72% of its picture, and labels
   alone would make 0.15%. */
static const struct {
    const char *name;
    double solid;
} examples[] = {{"derivation", 0.01}, {"lbs_vs_dqs", 0.01}, {"character", 0.01}, {"squash_stretch", 0.01},
                {"toolkit", 0.01}, {"ik", 0.005}};
#define EXAMPLE_COUNT ((int)(sizeof examples / sizeof examples[0]))

/* Runs a command, keeping what it prints; returns its exit status (-1 if it could not run). */
static int run(const char *command, char *output, size_t capacity)
{
    FILE *pipe = popen(command, "r");
    size_t length = 0, got;
    int status;
    output[0] = '\0';
    if (!pipe) return -1;
    while (length + 1 < capacity && (got = fread(output + length, 1, capacity - 1 - length, pipe)) > 0) length += got;
    output[length] = '\0';
    status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_example(const char *name, const char *arguments, char *output)
{
    char command[512];
    snprintf(command, sizeof command, "%s/example_%s %s", EXAMPLES_BUILD_DIR, name, arguments);
    return run(command, output, MAX_OUTPUT);
}

/* What an example printed (stdout and stderr) when it drew its pictures into
   SCRATCH, and its exit status: each runs once, and the tests that read its
   lines share that run (under the sanitizers a run takes seconds). */
static const char *example_output(const char *name, int *status)
{
    static char outputs[EXAMPLE_COUNT][MAX_OUTPUT];
    static int statuses[EXAMPLE_COUNT], ran[EXAMPLE_COUNT];
    int e;
    for (e = 0; e < EXAMPLE_COUNT && strcmp(examples[e].name, name) != 0; ++e) {}
    if (e == EXAMPLE_COUNT) { fprintf(stderr, "example_output: %s is not in examples[]\n", name); exit(1); }
    if (!ran[e]) {
        statuses[e] = run_example(name, "--out " SCRATCH " 2>&1", outputs[e]);
        ran[e] = 1;
    }
    *status = statuses[e];
    return outputs[e];
}

/* The median of one channel over a row of pixels. */
static int row_median(const unsigned char *row, int width, int channel)
{
    int histogram[256] = {0}, value, seen = 0, x;
    for (x = 0; x < width; ++x) ++histogram[row[3 * x + channel]];
    for (value = 0; value < 255; ++value) {
        seen += histogram[value];
        if (2 * seen >= width) break;
    }
    return value;
}

/* Share of pixels inside solid drawn shapes: pixels whose whole 5x5 neighbourhood
   stands out from the backdrop. The backdrop is the same along a row (a vertical
   gradient), so each row's median colour stands for it. Text strokes are too thin
   to count: the examples' labels alone score about 0.15%, their pictures 3% to 8%. */
static double solid_share(const unsigned char *rgb, int width, int height)
{
    unsigned char *drawn = (unsigned char *)calloc((size_t)width * (size_t)height, 1);
    long solid = 0;
    int x, y, c, i, j;
    if (!drawn) return 0.0;
    for (y = 0; y < height; ++y) {
        const unsigned char *row = rgb + (size_t)y * (size_t)width * 3;
        int backdrop[3];
        for (c = 0; c < 3; ++c) backdrop[c] = row_median(row, width, c);
        for (x = 0; x < width; ++x)
            for (c = 0; c < 3; ++c)
                if (abs(row[3 * x + c] - backdrop[c]) > 24) drawn[(size_t)y * (size_t)width + (size_t)x] = 1;
    }
    for (y = 2; y < height - 2; ++y)
        for (x = 2; x < width - 2; ++x) {
            int all = 1;
            for (j = -2; j <= 2 && all; ++j)
                for (i = -2; i <= 2 && all; ++i) all = drawn[(size_t)(y + j) * (size_t)width + (size_t)(x + i)];
            solid += all;
        }
    free(drawn);
    return (double)solid / ((double)width * (double)height);
}

static void every_example_draws_its_pictures(void)
{
    int e;
    for (e = 0; e < EXAMPLE_COUNT; ++e) {
        const char *line;
        const char *name = examples[e].name, *cut;
        int pictures = 0, status;
        const char *output = example_output(name, &status);
        CHECK(status == 0, "example_%s exited with %d", name, status);
        /* the renderer reports every label whose strokes reach past its panel's edge */
        for (cut = strstr(output, "text cut off"); cut; cut = strstr(cut + 1, "text cut off"))
            CHECK(0, "example_%s: %.*s", name, (int)strcspn(cut, "\n"), cut);
        for (line = strstr(output, "wrote "); line; line = strstr(line + 1, "\nwrote ")) {
            char path[512], committed[600];
            int width = 0, height = 0, read_width = 0, read_height = 0, channels = 0;
            unsigned char *rgb;
            struct stat committed_file;
            if (*line == '\n') ++line;
            if (sscanf(line, "wrote %511s %dx%d", path, &width, &height) != 3) {
                CHECK(0, "example_%s printed an unreadable line: %.60s", name, line);
                continue;
            }
            ++pictures;
            rgb = stbi_load(path, &read_width, &read_height, &channels, 3);
            CHECK(rgb != NULL, "%s is not a readable PNG: %s", path, stbi_failure_reason());
            if (!rgb) continue;
            CHECK(read_width == width && read_height == height, "%s is %dx%d, the example said %dx%d", path, read_width,
                  read_height, width, height);
            CHECK(width >= 400 && height >= 200, "%s is only %dx%d", path, width, height);
            CHECK(solid_share(rgb, read_width, read_height) > examples[e].solid,
                  "%s looks empty: %.2f%% of it is drawn shapes", path, 100.0 * solid_share(rgb, read_width, read_height));
            stbi_image_free(rgb);

            snprintf(committed, sizeof committed, "docs/images/%s", strrchr(path, '/') + 1);
            if (CHECK(stbi_info(committed, &read_width, &read_height, &channels), "%s is missing: run make demo-images",
                      committed)) {
                CHECK(read_width == width && read_height == height,
                      "%s is %dx%d but the example now draws %dx%d: run make demo-images", committed, read_width,
                      read_height, width, height);
                CHECK(stat(committed, &committed_file) == 0 && committed_file.st_size < 300 * 1024,
                      "%s is larger than 300 KB", committed);
            }
        }
        CHECK(pictures >= 1, "example_%s reported no picture", name);
    }
}

static void options_are_explained_and_checked(void)
{
    static char output[MAX_OUTPUT];
    int e;
    for (e = 0; e < EXAMPLE_COUNT; ++e) {
        int status = run_example(examples[e].name, "--help", output);
        CHECK(status == 0 && strstr(output, "usage:") && strstr(output, "--out"), "example_%s --help: status %d, '%.80s'",
              examples[e].name, status, output);
        status = run_example(examples[e].name, "--no-such-option 2>/dev/null", output);
        CHECK(status != 0, "example_%s accepted an unknown option", examples[e].name);
    }
}

static void lbs_collapses_under_twist_and_dqs_does_not(void)
{
    const char *line;
    int twists = 0, status;
    const char *output = example_output("lbs_vs_dqs", &status);
    CHECK(status == 0, "example_lbs_vs_dqs exited with %d", status);
    for (line = strstr(output, "joint_radius"); line; line = strstr(line + 1, "joint_radius")) {
        char deform[16];
        float degrees, lbs, dqs, rest;
        if (sscanf(line, "joint_radius deform=%15s degrees=%f lbs=%f dqs=%f rest=%f", deform, &degrees, &lbs, &dqs, &rest) != 5) {
            CHECK(0, "unreadable line: %.80s", line);
            continue;
        }
        CHECK(dqs > 0.98f * rest && dqs < 1.02f * rest, "DQS should keep the joint radius: %s %.0f deg, %.4f of %.4f",
              deform, (double)degrees, (double)dqs, (double)rest);
        if (degrees > 0.0f)
            CHECK(lbs < dqs, "LBS should shrink the joint: %s %.0f deg, LBS %.4f vs DQS %.4f", deform, (double)degrees,
                  (double)lbs, (double)dqs);
        if (strcmp(deform, "twist") == 0) {
            ++twists;
            if (degrees == 180.0f)
                CHECK(lbs < 0.1f * rest, "LBS at 180 degrees of twist should collapse the joint: radius %.4f of %.4f",
                      (double)lbs, (double)rest);
        }
    }
    CHECK(twists == 5, "expected 5 twist measurements, read %d", twists);
}

/* The comparison of LBS, DQS and CoR (centres of rotation), read from the
   "compare" lines: radius and bulge relative to the rest radius (see
   examples/lbs_vs_dqs.c). What the geometry gives:
   - the ring at the joint is weighted half and half, so under a twist by theta
     LBS puts each of its vertices at the mean of two points of the circle
     theta apart: radius cos(theta/2) (0.7071 at 90 degrees, 0 at 180); under a
     bend by 90 the ring's vertices in the plane of the bend land at
     cos(45 deg) = 0.7071 of the radius from the joint;
   - DQS turns each vertex about the joint (both bones turn about it), the ring
     by half the angle: radius 1;
   - CoR: the weights are mirror-symmetric about the joint, so the ring's centre
     is the joint itself, which stays: the ring turns rigidly about it, radius 1;
   - a twist moves no vertex out of the limb under any of the three (a rotation
     about the axis, or for LBS a mean of two points of a circle);
   - on the outside of a 90 degree bend DQS turns the vertex half a radius past
     the joint (weight 0.84 on the bent bone) by 13.2 degrees less than its bone:
     0.5 sin 13.2 + cos 13.2 - 1 = 0.088 of the radius outside; CoR turns the same
     vertices about centres that move as LBS moves them, pulled inwards by the
     blend, and must bulge less.
   Tolerances: 1e-3 where the geometry gives an exact value (float rounding and
   the mesh's sampling stay far below it); the bulge of DQS above 0.05. */
static void cor_keeps_the_radius_and_bulges_less_than_dqs(void)
{
    const char *line;
    float radius[2][3] = {{0}}, bulge[2][3] = {{0}}; /* [twist 90, twist 180][lbs, dqs, cor] */
    float bend_radius[3] = {0}, bend_bulge[3] = {0};
    int lines = 0, status, m, r;
    const char *output = example_output("lbs_vs_dqs", &status);
    CHECK(status == 0, "example_lbs_vs_dqs exited with %d", status);
    for (line = strstr(output, "compare "); line; line = strstr(line + 1, "compare ")) {
        char deform[16], method[8];
        float degrees, rad, bul;
        if (sscanf(line, "compare deform=%15s degrees=%f method=%7s radius=%f bulge=%f", deform, &degrees, method, &rad,
                   &bul) != 5) {
            CHECK(0, "unreadable line: %.80s", line);
            continue;
        }
        m = strcmp(method, "lbs") == 0 ? 0 : strcmp(method, "dqs") == 0 ? 1 : strcmp(method, "cor") == 0 ? 2 : -1;
        r = strcmp(deform, "bend") == 0 && degrees == 90.0f ? 2
            : strcmp(deform, "twist") == 0 && degrees == 90.0f ? 0
            : strcmp(deform, "twist") == 0 && degrees == 180.0f ? 1 : -1;
        if (!CHECK(m >= 0 && r >= 0, "unexpected pose or method: %.80s", line)) continue;
        ++lines;
        if (r < 2) {
            radius[r][m] = rad;
            bulge[r][m] = bul;
        } else {
            bend_radius[m] = rad;
            bend_bulge[m] = bul;
        }
    }
    CHECK(lines == 9, "expected 9 compare lines (3 poses x 3 methods), read %d", lines);
    for (r = 0; r < 2; ++r) {
        float degrees = r == 0 ? 90.0f : 180.0f, expected = cosf(0.5f * degrees * 3.14159265f / 180.0f);
        CHECK(fabsf(radius[r][0] - expected) < 1e-3f, "LBS under a twist of %.0f deg: radius %.4f, cos(theta/2) = %.4f",
              (double)degrees, (double)radius[r][0], (double)expected);
        for (m = 1; m < 3; ++m)
            CHECK(fabsf(radius[r][m] - 1.0f) < 1e-3f, "%s under a twist of %.0f deg should keep the radius: %.4f",
                  m == 1 ? "DQS" : "CoR", (double)degrees, (double)radius[r][m]);
        for (m = 0; m < 3; ++m)
            CHECK(bulge[r][m] < 1e-3f, "%s under a twist of %.0f deg should not bulge: %.4f",
                  m == 0 ? "LBS" : m == 1 ? "DQS" : "CoR", (double)degrees, (double)bulge[r][m]);
    }
    CHECK(fabsf(bend_radius[0] - 0.70711f) < 1e-3f, "LBS under a bend of 90 deg: radius %.4f, cos(45 deg) = 0.7071",
          (double)bend_radius[0]);
    CHECK(fabsf(bend_radius[1] - 1.0f) < 1e-3f && fabsf(bend_radius[2] - 1.0f) < 1e-3f,
          "DQS and CoR under a bend of 90 deg should keep the radius: %.4f, %.4f", (double)bend_radius[1],
          (double)bend_radius[2]);
    CHECK(bend_bulge[1] > 0.05f, "DQS should bulge on the outside of a 90 deg bend (0.088 of the radius): %.4f",
          (double)bend_bulge[1]);
    CHECK(bend_bulge[2] < bend_bulge[1], "CoR should bulge less than DQS on a 90 deg bend: CoR %.4f, DQS %.4f",
          (double)bend_bulge[2], (double)bend_bulge[1]);
}

/* Squash and stretch: LBS, DQS with scale and CoR put the tube's end where
   the scaled bone ends (root scale x stretch x 2), DQS that ignores scale
   leaves it at the unscaled length; read from the "tip_reach" lines. A
   uniform scale s at the root scales each method's mesh by s about the root's
   pivot, and CoR of matrices without scale is CoR of the rigid bones ("uniform_scale"
   line): both to float rounding, which on coordinates up to 7 is a few 1e-7;
   1e-5 allows 20 ulps. */
static void squash_and_stretch_follow_the_bone(void)
{
    const char *line;
    float scale, bend, lbs, dqs, cor, cor_rigid;
    int poses = 0, status;
    const char *output = example_output("squash_stretch", &status);
    CHECK(status == 0, "example_squash_stretch exited with %d", status);
    for (line = strstr(output, "tip_reach"); line; line = strstr(line + 1, "tip_reach")) {
        float stretch, root_scale, ignoring, expected;
        if (sscanf(line, "tip_reach stretch=%f bend=%f root_scale=%f lbs=%f dqs=%f cor=%f ignoring_scale=%f expected=%f",
                   &stretch, &bend, &root_scale, &lbs, &dqs, &cor, &ignoring, &expected) != 8) {
            CHECK(0, "unreadable line: %.60s", line);
            continue;
        }
        ++poses;
        CHECK(fabsf(expected - root_scale * stretch * 2.0f) < 1e-3f, "stretch %.2f, root scale %.2f: the bone is %.4f long",
              (double)stretch, (double)root_scale, (double)expected);
        CHECK(fabsf(lbs - expected) < 1e-3f && fabsf(dqs - expected) < 1e-3f && fabsf(cor - expected) < 1e-3f,
              "stretch %.2f, bend %.0f, root scale %.2f: LBS reaches %.4f, DQS with scale %.4f, CoR %.4f, the bone %.4f",
              (double)stretch, (double)bend, (double)root_scale, (double)lbs, (double)dqs, (double)cor, (double)expected);
        CHECK(fabsf(ignoring - 2.0f) < 1e-3f, "DQS ignoring scale reaches %.4f, not the unscaled 2", (double)ignoring);
    }
    CHECK(poses == 5, "%d poses printed, not 5", poses);
    line = strstr(output, "uniform_scale ");
    if (CHECK(line && sscanf(line, "uniform_scale scale=%f bend=%f lbs=%f dqs=%f cor=%f cor_rigid=%f", &scale, &bend, &lbs,
                             &dqs, &cor, &cor_rigid) == 6,
              "no readable uniform_scale line")) {
        CHECK(scale != 1.0f && lbs < 1e-5f && dqs < 1e-5f && cor < 1e-5f,
              "a uniform scale %.2f at the root should scale the mesh about the root's pivot: LBS off by %.3g, DQS %.3g, "
              "CoR %.3g",
              (double)scale, (double)lbs, (double)dqs, (double)cor);
        CHECK(cor_rigid < 1e-5f, "CoR of matrices without scale is %.3g from CoR of the rigid bones", (double)cor_rigid);
    }
}

/* The toolkit's character, measured on each frame's final pose: the left wrist
   on its two-bone IK target, the eyes' line of sight through the aim target, the
   legs as the walk has them and the right arm as the wave layer has it (the
   masks); and the placement composed from one root motion delta per tick is the
   one-call motion (no drift) and travels at the clip's speed. Read from the
   "toolkit" and "root_motion" lines. */
static void toolkit_reaches_looks_and_travels(void)
{
    const char *line;
    int frames = 0, status;
    const char *output = example_output("toolkit", &status);
    float drift, travelled, expected;
    int ticks, loops;
    CHECK(status == 0, "example_toolkit exited with %d", status);
    for (line = strstr(output, "toolkit frame="); line; line = strstr(line + 1, "toolkit frame=")) {
        float time, hand, aim, legs, arm;
        int frame;
        if (sscanf(line, "toolkit frame=%d time=%f hand_error=%f aim_error_deg=%f legs_from_walk_rad=%f arm_from_wave_rad=%f",
                   &frame, &time, &hand, &aim, &legs, &arm) != 6) {
            CHECK(0, "unreadable line: %.80s", line);
            continue;
        }
        ++frames;
        CHECK(hand < 1e-5f, "frame %d (%.2f s): the left wrist is %.3g m from its target", frame, (double)time,
              (double)hand);
        CHECK(aim < 1e-3f, "frame %d (%.2f s): the line of sight misses the target by %.3g degrees", frame, (double)time,
              (double)aim);
        CHECK(legs < 1e-6f && arm < 1e-6f, "frame %d: the masks let the layers mix: legs %.3g, right arm %.3g rad",
              frame, (double)legs, (double)arm);
    }
    CHECK(frames == 4, "%d frames printed, not 4", frames);
    line = strstr(output, "root_motion ");
    if (CHECK(line && sscanf(line, "root_motion ticks=%d loops=%d drift=%f travelled=%f expected=%f", &ticks, &loops,
                             &drift, &travelled, &expected) == 5,
              "no readable root_motion line")) {
        CHECK(loops >= 1, "the play did not loop the clip (%d loops)", loops);
        CHECK(drift < 1e-5f, "%d deltas drift %.3g m from the one-call motion", ticks, (double)drift);
        CHECK(fabsf(travelled - expected) < 0.01f * expected, "the trail is %.3f m long, the clip walks %.3f m",
              (double)travelled, (double)expected);
    }
}

/* The example compares the bits itself and says so for each method. 30011
   vertices over three threads cut the mesh at vertices 10003 and 20007: inside
   the SIMD loops' groups of 4, 8 and 16, not at their edges. */
static void threads_write_the_bits_of_one_call(void)
{
    static char output[MAX_OUTPUT];
    const char *line;
    int same = 0, status = run_example("threads", "--threads 3 --vertices 30011 --out " SCRATCH, output);
    CHECK(status == 0, "example_threads exited with %d: %.300s", status, output);
    for (line = strstr(output, "same bits as one call"); line; line = strstr(line + 1, "same bits as one call")) ++same;
    CHECK(same == 2, "example_threads should report the same bits for LBS and DQS, reported %d: %.300s", same, output);
    status = run_example("threads", "--help", output);
    CHECK(status == 0 && strstr(output, "usage:") && strstr(output, "--out"), "example_threads --help: status %d, '%.80s'",
          status, output);
    status = run_example("threads", "--no-such-option 2>/dev/null", output);
    CHECK(status != 0, "example_threads accepted an unknown option");
}

int main(void)
{
    RUN_TEST(every_example_draws_its_pictures);
    RUN_TEST(options_are_explained_and_checked);
    RUN_TEST(lbs_collapses_under_twist_and_dqs_does_not);
    RUN_TEST(cor_keeps_the_radius_and_bulges_less_than_dqs);
    RUN_TEST(squash_and_stretch_follow_the_bone);
    RUN_TEST(toolkit_reaches_looks_and_travels);
    RUN_TEST(threads_write_the_bits_of_one_call);
    return check_finish();
}
