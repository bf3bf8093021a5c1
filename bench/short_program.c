/* SPDX-License-Identifier: BSD-3-Clause */
/* tg-short-program: what a short real program pays for its allgathers, as a
 * user meets it: a fresh process that duplicates MPI_COMM_WORLD a few times
 * and makes a few MPI_Allgather calls on each, so that first-call work
 * (calibration, planning, auto's trials) counts. It calls MPI_Allgather, so
 * it measures the vendor alone, or torusgather under LD_PRELOAD
 * (scripts/short-program.sh runs both). Prints, on rank 0, one line:
 *   short-program ranks=P comms=C calls=N bytes=B,... total_us=T check=ok
 * where T is the slowest rank's time inside MPI_Allgather, summed over all
 * calls. Exit status 1 if any result is wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(int rank) {
  if (rank == 0)
    fprintf(stderr, "usage: tg-short-program [--comms C] [--calls N] [--bytes B[,B...]] [--each]\n"
                    "  C duplicates of MPI_COMM_WORLD (default 4), N calls of each block size on each\n"
                    "  (default 10), block sizes in bytes (default 8,1024); --each: rank 0 prints each\n"
                    "  call's own time\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int comms = 4, calls = 10, nbytes = 0, each = 0;
  long bytes[16];
  const char* list = "8,1024";
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && strcmp(argv[i], "--comms") == 0) comms = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--calls") == 0) calls = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--bytes") == 0) list = argv[++i];
    else if (strcmp(argv[i], "--each") == 0) each = 1;
    else {
      usage(rank);
      MPI_Finalize();
      return 2;
    }
  }
  for (const char* p = list; *p && nbytes < 16;) {
    char* end = NULL;
    bytes[nbytes++] = strtol(p, &end, 10);
    if (end == p || bytes[nbytes - 1] < 1) {
      usage(rank);
      MPI_Finalize();
      return 2;
    }
    p = *end == ',' ? end + 1 : end;
  }
  if (comms < 1 || calls < 1) {
    usage(rank);
    MPI_Finalize();
    return 2;
  }
  long largest = 0;
  for (int b = 0; b < nbytes; ++b) largest = bytes[b] > largest ? bytes[b] : largest;
  unsigned char* send = malloc((size_t)largest);
  unsigned char* recv = malloc((size_t)largest * (size_t)size);
  int ok = send && recv;
  double inside = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int c = 0; c < comms && ok; ++c) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int k = 0; k < calls; ++k)
      for (int b = 0; b < nbytes; ++b) {
        for (long i = 0; i < bytes[b]; ++i) send[i] = (unsigned char)(rank * 31 + c * 7 + k + b + i);
        const double t0 = MPI_Wtime();
        MPI_Allgather(send, (int)bytes[b], MPI_BYTE, recv, (int)bytes[b], MPI_BYTE, comm);
        const double t = MPI_Wtime() - t0;
        inside += t;
        if (each && rank == 0) printf("comm %d call %d bytes %ld: %.1f us\n", c, k, bytes[b], t * 1e6);
        for (int r = 0; r < size; ++r)
          for (long i = 0; i < bytes[b]; ++i)
            if (recv[(size_t)r * (size_t)bytes[b] + (size_t)i] != (unsigned char)(r * 31 + c * 7 + k + b + i)) ok = 0;
      }
    MPI_Comm_free(&comm);
  }
  double slowest = 0;
  int all_ok = 0;
  MPI_Reduce(&inside, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("short-program ranks=%d comms=%d calls=%d bytes=%s total_us=%.1f check=%s\n", size, comms, calls, list,
           slowest * 1e6, all_ok ? "ok" : "WRONG");
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return rank == 0 ? !all_ok : 0;
}
