package io.fsp.client.write;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * An ext4 file system whose write-back fails: a sparse 256 MiB image on a 64 MiB tmpfs, loop-mounted. Writes land in
 * the page cache and succeed; once more than the tmpfs holds is written back, the loop device's writes to its image
 * fail (ENOSPC) and the kernel reports a write-back error to fdatasync and syncfs. Needs root (mount, a loop device);
 * everything is unmounted by {@link #close}, the loop device detached with it.
 */
public final class FailingDisk implements AutoCloseable {
    private final Path backing;
    private final Path mountPoint;
    private boolean backingMounted;
    private boolean mounted;

    private FailingDisk(Path backing, Path mountPoint) {
        this.backing = backing;
        this.mountPoint = mountPoint;
    }

    /** Mounts one at {@code mountPoint} (made if missing), its image on a tmpfs under {@code work}. */
    public static FailingDisk mount(Path work, Path mountPoint) throws IOException, InterruptedException {
        Path backing = Files.createDirectories(Files.createTempDirectory(work, "i43sync-backing"));
        Files.createDirectories(mountPoint);
        FailingDisk disk = new FailingDisk(backing, mountPoint);
        try {
            run("mount", "-t", "tmpfs", "-o", "size=64m", "i43sync-tmpfs", backing.toString());
            disk.backingMounted = true;
            Path image = backing.resolve("i43sync.img");
            run("truncate", "-s", "256M", image.toString());
            run("mkfs.ext4", "-q", "-F", "-b", "4096", image.toString());
            run("mount", "-o", "loop", image.toString(), mountPoint.toString());
            disk.mounted = true;
            return disk;
        } catch (IOException | InterruptedException | RuntimeException e) {
            disk.close();
            throw e;
        }
    }

    /**
     * Fills the tmpfs under the image: from now on every block the file system writes back where it wrote none
     * before (new data) fails at once, however little is written.
     */
    public void fillBacking() throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(backing.resolve("i43sync-filler"))) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException e) {
            if (Files.getFileStore(backing).getUsableSpace() > 0) {
                throw e;
            }
        }
    }

    public Path mountPoint() {
        return mountPoint;
    }

    /** Whether {@code id -u} is 0: mounting needs root. */
    public static boolean root() throws IOException, InterruptedException {
        return run("id", "-u").trim().equals("0");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (mounted) {
            unmount(mountPoint); // mount -o loop set the loop device to detach itself
            mounted = false;
        }
        if (backingMounted) {
            unmount(backing);
            backingMounted = false;
        }
    }

    private static void unmount(Path p) throws IOException, InterruptedException {
        Process umount = new ProcessBuilder("umount", p.toString()).redirectErrorStream(true).start();
        umount.getInputStream().readAllBytes();
        if (!umount.waitFor(60, TimeUnit.SECONDS) || umount.exitValue() != 0) {
            run("umount", "-l", p.toString());
        }
    }

    static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.trim());
        }
        return out;
    }
}
