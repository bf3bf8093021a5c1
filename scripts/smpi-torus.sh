#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs an MPI program built with smpicxx on a simulated torus (SimGrid SMPI).
#
#   scripts/smpi-torus.sh --dims 8x8 [--bw 10GBps] [--lat 1us] [--allgather ompi]
#                         [--sharing SPLITDUPLEX|SHARED|FATPIPE] [--limiter BW]
#                         [--factors ideal|smpi] [--sends auto|eager|synchronous]
#                         [--platform-dir DIR] [--cfg KEY:VALUE]...
#                         -- PROGRAM [ARGS...]
#
# The platform is a SimGrid cluster with topology="TORUS", dimension-order
# routing and simulate-computation off, so the times are deterministic. By
# default its links are full duplex (sharing_policy="SPLITDUPLEX": each
# direction of a link has the bandwidth --bw) and every port of a node can be
# busy at once; --sharing SHARED makes both directions share one bandwidth;
# --limiter BW adds SimGrid's per-node limiter link (limiter_link), a cap on
# all the traffic a node sends and receives (BW = --bw models a one-port node).
# SimGrid numbers hosts with its first dimension varying fastest while
# MPI_Cart_create is row-major (last axis fastest): the dims are given to
# SimGrid in reverse order, so host i is rank i and torus neighbours are one
# hop apart. TORUSGATHER_DIMS is exported so torusgather uses the same shape.
# Benchmarks allocate big receive buffers with SMPI_SHARED_MALLOC; the
# "local" mode shares them between simulated ranks (one buffer per call
# site), where this SimGrid's default did not (64 ranks x 64 MiB took 4.3 GB).
# --factors ideal (default) sets SMPI's bandwidth and latency correction
# factors to 1 and turns off its TCP cross-traffic (acknowledgement flows on
# the reverse path), so a message of m bytes to a neighbour costs exactly
# lat + m/bw, the model of the papers and of the bound (P-1)s/(2dB);
# --factors smpi keeps SMPI's defaults, calibrated on real TCP clusters
# (for large messages about 0.94 x bandwidth and 11.6 x latency).
# --sends: SMPI sends messages below 64 KiB eagerly ("detached"), and this
# SimGrid (3.32) spends time proportional to the number of ranks on every
# such message it completes: a plain neighbour exchange of 33 rounds on
# 12x12x12 took 48.5 s of wall-clock, 15.1 s with synchronous sends. Both
# start the transfer when the receive is posted, so simulated times barely
# differ (4x4x4: the vendor's 8-byte allgather 9.10 vs 9.11 us; torusgather's
# rows equal). "auto" (default): eager up to 1024 ranks (the lab's
# scenarios, unchanged), synchronous above.
set -euo pipefail

dims="" bw="10GBps" lat="1us" allgather="" pdir="" factors="ideal" sharing="SPLITDUPLEX" limiter="" sends="auto"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dims) dims="$2"; shift 2 ;;
    --bw) bw="$2"; shift 2 ;;
    --lat) lat="$2"; shift 2 ;;
    --allgather) allgather="$2"; shift 2 ;;
    --factors) factors="$2"; shift 2 ;;
    --sharing) sharing="$2"; shift 2 ;;
    --limiter) limiter="$2"; shift 2 ;;
    --sends) sends="$2"; shift 2 ;;
    --cfg) extra+=("--cfg=$2"); shift 2 ;;
    --platform-dir) pdir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "smpi-torus.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$dims" ] || [ $# -eq 0 ]; then
  echo "usage: $0 --dims 8x8 [--bw 10GBps] [--lat 1us] [--allgather ALG] -- PROGRAM [ARGS...]" >&2
  exit 2
fi
if ! [[ "$dims" =~ ^[0-9]+(x[0-9]+)*$ ]]; then
  echo "smpi-torus.sh: malformed --dims '$dims' (expected e.g. 8x8 or 4x4x4)" >&2
  exit 2
fi
case "$sharing" in SPLITDUPLEX|SHARED|FATPIPE) ;; *) echo "smpi-torus.sh: --sharing must be SPLITDUPLEX, SHARED or FATPIPE" >&2; exit 2 ;; esac
command -v smpirun >/dev/null || { echo "smpi-torus.sh: smpirun not found (install simgrid)" >&2; exit 2; }

IFS=x read -r -a sides <<<"$dims"
ranks=1
for n in "${sides[@]}"; do ranks=$((ranks * n)); done
reversed=""
for ((i = ${#sides[@]} - 1; i >= 0; i--)); do reversed+="${reversed:+,}${sides[i]}"; done

cleanup=""
if [ -z "$pdir" ]; then pdir=$(mktemp -d); cleanup="$pdir"; fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
mkdir -p "$pdir"
platform="$pdir/torus-$dims.xml"
hostfile="$pdir/torus-$dims.hosts"
cat >"$platform" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- $dims torus, $ranks hosts; topo_parameters reversed so that host i is row-major rank i -->
  <cluster id="torus" prefix="node-" radical="0-$((ranks - 1))" suffix="" speed="1Gf"
           bw="$bw" lat="$lat" topology="TORUS" topo_parameters="$reversed"
           sharing_policy="$sharing" loopback_bw="1000GBps" loopback_lat="0us"${limiter:+ limiter_link=\"$limiter\"}/>
</platform>
XML
for ((i = 0; i < ranks; i++)); do echo "node-$i"; done >"$hostfile"

cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/shared-malloc:local
     --log=root.thres:warning --log=smpi_config.thres:error --log=smpi_mpi.thres:error --log=smpi_pmpi.thres:error)
[ -n "$allgather" ] && cfg+=("--cfg=smpi/allgather:$allgather")
case "$factors" in
  ideal) cfg+=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0) ;;
  smpi) ;;
  *) echo "smpi-torus.sh: --factors must be ideal or smpi" >&2; exit 2 ;;
esac
case "$sends" in
  auto) [ "$ranks" -gt 1024 ] && cfg+=(--cfg=smpi/send-is-detached-thresh:0) ;;
  eager) ;;
  synchronous) cfg+=(--cfg=smpi/send-is-detached-thresh:0) ;;
  *) echo "smpi-torus.sh: --sends must be auto, eager or synchronous" >&2; exit 2 ;;
esac
cfg+=("${extra[@]}")
TORUSGATHER_DIMS="$dims" smpirun -np "$ranks" -platform "$platform" -hostfile "$hostfile" "${cfg[@]}" "$@"
