// pam-cycles: N pam_start_confdir/pam_authenticate/pam_end cycles in one process, for `make valgrind`.
// usage: pam-cycles CONFDIR SERVICE USER CYCLES [ANSWER]
// Every echo-off prompt is answered with ANSWER (default "0000"); the codes are counted and printed.
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int converse(int count, const struct pam_message **messages, struct pam_response **responses, void *data) {
  struct pam_response *replies = calloc((size_t)count, sizeof *replies);
  if (replies == NULL) return PAM_BUF_ERR;
  for (int i = 0; i < count; i++) {
    if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF || messages[i]->msg_style == PAM_PROMPT_ECHO_ON) {
      replies[i].resp = strdup((const char *)data);
    }
  }
  *responses = replies;
  return PAM_SUCCESS;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: pam-cycles CONFDIR SERVICE USER CYCLES [ANSWER]\n");
    return 2;
  }
  int cycles = atoi(argv[4]);
  struct pam_conv conv = {converse, argc > 5 ? argv[5] : "0000"};
  int counts[64] = {0};
  for (int i = 0; i < cycles; i++) {
    pam_handle_t *pamh = NULL;
    int code = pam_start_confdir(argv[2], argv[3], &conv, argv[1], &pamh);
    if (code != PAM_SUCCESS) {
      fprintf(stderr, "pam_start_confdir failed: %d\n", code);
      return 1;
    }
    code = pam_authenticate(pamh, PAM_SILENT);
    counts[code >= 0 && code < 64 ? code : 63]++;
    pam_end(pamh, code);
  }
  for (int code = 0; code < 64; code++) {
    if (counts[code] > 0) printf("cycles: %d x %s (%d)\n", counts[code], pam_strerror(NULL, code), code);
  }
  return 0;
}
