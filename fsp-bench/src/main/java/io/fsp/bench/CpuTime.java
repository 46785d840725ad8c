package io.fsp.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds (user + system) from Linux's /proc, for the benchmarks and the testbeds: of one process, and of the
 * whole machine.
 */
public final class CpuTime {
    /** USER_HZ, the unit of /proc's counters: 100 on Linux for every architecture this project runs on. */
    private static final double TICKS_PER_SECOND = 100;

    private CpuTime() {
    }

    /** CPU time of process {@code pid} so far, or NaN if it cannot be read (not Linux, process gone). */
    public static double ofProcess(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name in parentheses may hold spaces: count fields after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND; // utime, stime
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** CPU time of all cores together so far: user, nice, system, irq, softirq and steal; or NaN. */
    public static double ofMachine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(f[i]);
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
