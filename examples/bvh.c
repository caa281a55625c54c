/* bvh.c - the BVH reader declared in bvh.h. */
#include "bvh.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over the text: every read checks against end, so the buffer needs no NUL. */
typedef struct bvh__reader {
    const char *at, *end;
    int line;            /* line of the cursor */
    const char *token;   /* the last token read: token_length bytes on token_line */
    size_t token_length;
    int token_line;
    char *error;
    size_t error_size;
} bvh__reader;

static int bvh__fail(bvh__reader *r, int line, const char *format, ...)
{
    va_list args;
    int used;
    if (!r->error || r->error_size == 0) return 0;
    used = snprintf(r->error, r->error_size, "line %d: ", line);
    if (used >= 0 && (size_t)used < r->error_size) {
        va_start(args, format);
        vsnprintf(r->error + used, r->error_size - (size_t)used, format, args);
        va_end(args);
    }
    return 0;
}

static int bvh__is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* Reads the next token into r->token; braces are tokens of their own even when
   written against a word. Returns 0 at the end of the text. */
static int bvh__next(bvh__reader *r)
{
    while (r->at < r->end && bvh__is_space(*r->at)) {
        if (*r->at == '\n') r->line++;
        r->at++;
    }
    if (r->at == r->end) {
        r->token = r->at;
        r->token_length = 0;
        r->token_line = r->line;
        return 0;
    }
    r->token = r->at;
    r->token_line = r->line;
    if (*r->at == '{' || *r->at == '}') {
        r->at++;
    } else {
        while (r->at < r->end && !bvh__is_space(*r->at) && *r->at != '{' && *r->at != '}') r->at++;
    }
    r->token_length = (size_t)(r->at - r->token);
    return 1;
}

static int bvh__token_is(const bvh__reader *r, const char *word)
{
    size_t n = strlen(word);
    return r->token_length == n && memcmp(r->token, word, n) == 0;
}

/* The last token, quoted for a message (cut to 40 bytes, "end of file" at the end). */
static const char *bvh__quote(const bvh__reader *r, char buffer[48])
{
    size_t n = r->token_length < 40 ? r->token_length : 40, k;
    if (r->token_length == 0) return "end of file";
    buffer[0] = '\'';
    for (k = 0; k < n; ++k) buffer[1 + k] = (r->token[k] >= 32 && r->token[k] < 127) ? r->token[k] : '?';
    buffer[1 + n] = '\'';
    buffer[2 + n] = '\0';
    return buffer;
}

static int bvh__expect(bvh__reader *r, const char *word, const char *context)
{
    char quoted[48];
    if (bvh__next(r) && bvh__token_is(r, word)) return 1;
    return bvh__fail(r, r->token_line, "expected '%s' %s, found %s", word, context, bvh__quote(r, quoted));
}

/* Reads one finite number; strtod needs a NUL, so the token is copied first. */
static int bvh__number(bvh__reader *r, double *value, const char *what)
{
    char text[64], *stop, quoted[48];
    if (!bvh__next(r) || r->token_length >= sizeof text)
        return bvh__fail(r, r->token_line, "expected %s, found %s", what, bvh__quote(r, quoted));
    memcpy(text, r->token, r->token_length);
    text[r->token_length] = '\0';
    errno = 0;
    *value = strtod(text, &stop);
    if (stop == text || *stop != '\0' || errno == ERANGE || !(*value >= -DBL_MAX && *value <= DBL_MAX))
        return bvh__fail(r, r->token_line, "expected %s, found %s", what, bvh__quote(r, quoted));
    return 1;
}

static int bvh__count(bvh__reader *r, int *count, int max, const char *what)
{
    double value;
    char quoted[48];
    if (!bvh__number(r, &value, what)) return 0;
    if (!(value >= 0.0 && value <= (double)max && value == (double)(int)value))
        return bvh__fail(r, r->token_line, "%s must be a whole number from 0 to %d, found %s", what, max,
                         bvh__quote(r, quoted));
    *count = (int)value;
    return 1;
}

static int bvh__channel(const bvh__reader *r, bvh_channel *channel)
{
    static const char *const names[6] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};
    int k;
    for (k = 0; k < 6; ++k)
        if (bvh__token_is(r, names[k])) { *channel = (bvh_channel)k; return 1; }
    return 0;
}

/* Appends a joint named by the current token (or "End Site"), growing the array. */
static int bvh__add_joint(bvh__reader *r, bvh_file *file, int *capacity, int parent, int is_end_site)
{
    bvh_joint *joint;
    const char *name = is_end_site ? "End Site" : r->token;
    size_t name_length = is_end_site ? 8 : r->token_length;
    if (file->joint_count == *capacity) {
        int grown = *capacity ? 2 * *capacity : 32;
        bvh_joint *joints;
        if (grown > 1 << 20) return bvh__fail(r, r->token_line, "more than %d joints", 1 << 20);
        joints = (bvh_joint *)realloc(file->joints, (size_t)grown * sizeof *joints);
        if (!joints) return bvh__fail(r, r->token_line, "out of memory");
        file->joints = joints;
        *capacity = grown;
    }
    joint = &file->joints[file->joint_count];
    memset(joint, 0, sizeof *joint);
    joint->name = (char *)malloc(name_length + 1);
    if (!joint->name) return bvh__fail(r, r->token_line, "out of memory");
    memcpy(joint->name, name, name_length);
    joint->name[name_length] = '\0';
    joint->parent = parent;
    joint->is_end_site = is_end_site;
    joint->first_channel = file->channel_count;
    file->joint_count++;
    return 1;
}

/* The body of a ROOT, JOINT or End Site after its '{': OFFSET, CHANNELS, children.
   The tree is walked with the parent links instead of recursion, so a deeply
   nested file cannot overflow the stack. */
static int bvh__hierarchy(bvh__reader *r, bvh_file *file)
{
    int capacity = 0, current = -1, k;
    char quoted[48];
    for (;;) {
        if (!bvh__next(r)) {
            if (current >= 0) return bvh__fail(r, r->line, "end of file inside %s (missing '}')", file->joints[current].name);
            return bvh__fail(r, r->line, "end of file before MOTION");
        }
        if (current < 0) { /* between roots */
            if (bvh__token_is(r, "MOTION")) {
                if (file->joint_count == 0) return bvh__fail(r, r->token_line, "HIERARCHY has no ROOT");
                return 1;
            }
            if (!bvh__token_is(r, "ROOT"))
                return bvh__fail(r, r->token_line, "expected ROOT or MOTION, found %s", bvh__quote(r, quoted));
            if (!bvh__next(r) || bvh__token_is(r, "{"))
                return bvh__fail(r, r->token_line, "expected a name after ROOT, found %s", bvh__quote(r, quoted));
            if (!bvh__add_joint(r, file, &capacity, -1, 0)) return 0;
            current = file->joint_count - 1;
            if (!bvh__expect(r, "{", "after the ROOT name")) return 0;
            continue;
        }
        if (bvh__token_is(r, "OFFSET")) {
            for (k = 0; k < 3; ++k)
                if (!bvh__number(r, &file->joints[current].offset[k], "three OFFSET numbers")) return 0;
        } else if (bvh__token_is(r, "CHANNELS")) {
            bvh_joint *joint = &file->joints[current];
            int line = r->token_line;
            if (joint->is_end_site) return bvh__fail(r, line, "an End Site has no CHANNELS");
            if (joint->channel_count > 0) return bvh__fail(r, line, "%s has two CHANNELS lines", joint->name);
            if (!bvh__count(r, &joint->channel_count, BVH_MAX_CHANNELS, "the channel count")) return 0;
            for (k = 0; k < joint->channel_count; ++k)
                if (!bvh__next(r) || !bvh__channel(r, &joint->channels[k]))
                    return bvh__fail(r, r->token_line, "expected a channel name (Xposition ... Zrotation), found %s",
                                     bvh__quote(r, quoted));
            joint->first_channel = file->channel_count;
            file->channel_count += joint->channel_count;
        } else if (bvh__token_is(r, "JOINT")) {
            if (file->joints[current].is_end_site) return bvh__fail(r, r->token_line, "an End Site has no children");
            if (!bvh__next(r) || bvh__token_is(r, "{"))
                return bvh__fail(r, r->token_line, "expected a name after JOINT, found %s", bvh__quote(r, quoted));
            if (!bvh__add_joint(r, file, &capacity, current, 0)) return 0;
            current = file->joint_count - 1;
            if (!bvh__expect(r, "{", "after the JOINT name")) return 0;
        } else if (bvh__token_is(r, "End")) {
            if (file->joints[current].is_end_site) return bvh__fail(r, r->token_line, "an End Site has no children");
            if (!bvh__expect(r, "Site", "after End")) return 0;
            if (!bvh__add_joint(r, file, &capacity, current, 1)) return 0;
            current = file->joint_count - 1;
            if (!bvh__expect(r, "{", "after End Site")) return 0;
        } else if (bvh__token_is(r, "}")) {
            current = file->joints[current].parent;
        } else {
            return bvh__fail(r, r->token_line, "expected OFFSET, CHANNELS, JOINT, End Site or '}' in %s, found %s",
                             file->joints[current].name, bvh__quote(r, quoted));
        }
    }
}

static int bvh__motion(bvh__reader *r, bvh_file *file)
{
    size_t values, remaining, v;
    int frame, column, row_line = 0;
    if (!bvh__expect(r, "Frames:", "after MOTION")) return 0;
    if (!bvh__count(r, &file->frame_count, 1 << 30, "the number of frames")) return 0;
    if (!bvh__expect(r, "Frame", "after the number of frames") || !bvh__expect(r, "Time:", "after Frame")) return 0;
    if (!bvh__number(r, &file->frame_time, "the frame time in seconds")) return 0;
    if (!(file->frame_time >= 0.0 && file->frame_time < 1e30))
        return bvh__fail(r, r->token_line, "the frame time must not be negative");
    /* Each number takes at least two bytes (a digit and a separator), so the text
       bounds what can honestly be declared; this check comes before allocating. */
    remaining = (size_t)(r->end - r->at);
    values = (size_t)file->frame_count * (size_t)file->channel_count;
    if (file->channel_count > 0 && values / (size_t)file->channel_count != (size_t)file->frame_count)
        return bvh__fail(r, r->token_line, "too many frames");
    if (values > remaining / 2 + 1)
        return bvh__fail(r, r->token_line, "%d frames of %d channels declared, but the file is too short for them",
                         file->frame_count, file->channel_count);
    file->motion = (double *)malloc(values ? values * sizeof(double) : 1);
    if (!file->motion) return bvh__fail(r, r->token_line, "out of memory");
    v = 0;
    for (frame = 0; frame < file->frame_count && file->channel_count > 0; ++frame) { /* no channels: nothing to read */
        for (column = 0; column < file->channel_count; ++column, ++v) {
            if (!bvh__number(r, &file->motion[v], "a channel value")) {
                if (r->token_length == 0)
                    return bvh__fail(r, r->line, "end of file in frame %d of %d (%d of %d numbers)", frame + 1,
                                     file->frame_count, column, file->channel_count);
                return 0;
            }
            if (column == 0) row_line = r->token_line;
            else if (r->token_line != row_line)
                return bvh__fail(r, row_line, "frame %d has %d numbers, expected %d", frame + 1, column,
                                 file->channel_count);
        }
    }
    /* Whatever follows the declared frames is ignored: exporters that write one
       frame more than they declare are common (Boxing_Toes.bvh in assimp's test
       models is one), and the declared count is what every reader honours. */
    if (bvh__next(r) && r->token_line == row_line && file->frame_count > 0 && file->channel_count > 0)
        return bvh__fail(r, row_line, "frame %d has more than %d numbers", file->frame_count, file->channel_count);
    return 1;
}

int bvh_parse(const char *text, size_t length, bvh_file *out, char *error, size_t error_size)
{
    bvh__reader r;
    memset(out, 0, sizeof *out);
    memset(&r, 0, sizeof r);
    r.at = text;
    r.end = text ? text + length : text;
    r.line = 1;
    r.error = error;
    r.error_size = error_size;
    if (error && error_size) error[0] = '\0';
    if (!text && length) { bvh__fail(&r, 0, "no text"); return 0; }
    if (bvh__expect(&r, "HIERARCHY", "at the start of the file") && bvh__hierarchy(&r, out) && bvh__motion(&r, out))
        return 1;
    bvh_free(out);
    return 0;
}

int bvh_load(const char *path, bvh_file *out, char *error, size_t error_size)
{
    FILE *stream = fopen(path, "rb");
    char *text = NULL;
    long size;
    int ok = 0;
    memset(out, 0, sizeof *out);
    if (!stream) {
        if (error && error_size) snprintf(error, error_size, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (fseek(stream, 0, SEEK_END) == 0 && (size = ftell(stream)) >= 0 && fseek(stream, 0, SEEK_SET) == 0 &&
        (text = (char *)malloc((size_t)size + 1)) != NULL && fread(text, 1, (size_t)size, stream) == (size_t)size) {
        char message[512];
        ok = bvh_parse(text, (size_t)size, out, message, sizeof message);
        if (!ok && error && error_size) snprintf(error, error_size, "%s: %s", path, message);
    } else if (error && error_size) {
        snprintf(error, error_size, "%s: cannot read the file", path);
    }
    free(text);
    fclose(stream);
    return ok;
}

void bvh_free(bvh_file *file)
{
    int j;
    for (j = 0; j < file->joint_count; ++j) free(file->joints[j].name);
    free(file->joints);
    free(file->motion);
    memset(file, 0, sizeof *file);
}
