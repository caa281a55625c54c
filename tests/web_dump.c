/* web_dump.c - the web page's module (examples/web/skin_web.c) built natively:
   prints the skinned vertices of the poses that the page prints when opened
   with ?test=1, so that tests/web_test.sh can hold the WebAssembly build's
   numbers to this build's.

   build/web_dump BVH_FILE */
#include "../examples/web/skin_web.c"

#include <stdio.h>

/* The cases, as page.js's selfTest() lists them: model, time, method, IK target. */
static const struct {
    int model;
    float time;
    int method, ik;
    float target[3];
} cases[] = {
    {0, 0.3f, WEB_DQS_SCALED, 1, {-0.35f, 1.55f, 0.35f}},
    {0, 0.9f, WEB_LBS, 0, {0, 0, 0}},
    {1, 3.0f, WEB_DQS, 1, {-20.0f, 20.0f, 10.0f}},
    {2, 5.0f, WEB_DQS, 0, {0, 0, 0}},
    {0, 0.6f, WEB_COR, 1, {-0.35f, 1.55f, 0.35f}},
    {1, 2.0f, WEB_COR, 0, {0, 0, 0}},
};

int main(int argc, char **argv)
{
    FILE *file;
    long length;
    char *text;
    size_t c;
    int v;
    if (argc != 2 || !(file = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: web_dump BVH_FILE\n");
        return 2;
    }
    fseek(file, 0, SEEK_END);
    length = ftell(file);
    fseek(file, 0, SEEK_SET);
    text = web_buffer((int)length);
    if (!text || fread(text, 1, (size_t)length, file) != (size_t)length || !web_load_bvh(text, (int)length)) {
        fprintf(stderr, "web_dump: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(file);
    for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const float *p;
        int result;
        web_select(cases[c].model);
        result = cases[c].method == WEB_COR ? web_cor_centers() : FK_OK;
        if (result == FK_OK)
            result = web_pose(cases[c].time, cases[c].method, cases[c].ik, cases[c].target[0], cases[c].target[1],
                              cases[c].target[2]);
        if (result == FK_OK) result = web_skin(cases[c].method);
        printf("case %d %d\n", (int)c, result);
        p = web_skinned_positions();
        for (v = 0; v < web_vertex_count(); ++v) printf("%.9g %.9g %.9g\n", p[3 * v], p[3 * v + 1], p[3 * v + 2]);
    }
    return 0;
}
