package io.fsp.cli.agent;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where this user's agent for this build listens: {@code DIR/KEY.sock}, with its start lock ({@code KEY.lock}) and log
 * ({@code KEY.log}). DIR is {@code $FSP_AGENT_DIR}, else {@code $XDG_RUNTIME_DIR/fsp-agent}, else
 * {@code /tmp/fsp-agent-UID}, made 0700 and refused unless this user owns it and no one else may enter it. KEY is a
 * hash of what makes a command's world: the build (every class path entry's name, size and time), the network and
 * mount namespaces (a command in another netns or container never reaches an agent outside it, though a path socket
 * would let it), the umask (what the agent creates gets the agent's) and the hard open-files limit. The native launcher
 * (fsp-launcher.c) hashes the same text.
 */
public record AgentAddress(Path dir, String key) {
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    public Path socket() {
        return dir.resolve(key + ".sock");
    }

    public Path lock() {
        return dir.resolve(key + ".lock");
    }

    public Path log() {
        return dir.resolve(key + ".log");
    }

    /** Where the agent keeps its managed transfers' records and output. */
    public Path transfers() {
        return dir.resolve(key + ".transfers");
    }

    /** The address for this process, its directory made private if new; an IOException says why there is none. */
    public static AgentAddress ofThisProcess(Map<String, String> env) throws IOException {
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path dir = directory(env, uid);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another launcher made it: checked below like any other
            }
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (owner != uid || !mode.equals(PRIVATE)) {
            throw new IOException(dir + " is not private to uid " + uid + " (owner " + owner + ", mode "
                    + PosixFilePermissions.toString(mode) + "; expected rwx------)");
        }
        return new AgentAddress(dir, key(classPath(env)));
    }

    /** The class path of the commands: bin/launch's $FSP_AGENT_CLASSPATH (a launcher's own is its jar alone), else this JVM's. */
    public static String classPath(Map<String, String> env) {
        return env.getOrDefault("FSP_AGENT_CLASSPATH", System.getProperty("java.class.path"));
    }

    /** The directory of this user's agents (whether or not it exists yet). */
    public static Path directoryOf(Map<String, String> env) {
        try {
            return directory(env, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Path directory(Map<String, String> env, int uid) {
        String named = env.get("FSP_AGENT_DIR");
        if (named != null && named.startsWith("/")) {
            return Path.of(named);
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (runtime != null && runtime.startsWith("/") && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime, "fsp-agent");
        }
        return Path.of("/tmp", "fsp-agent-" + uid);
    }

    /** The key of this process's world (see the class comment), 16 hex digits. */
    static String key(String classPath) throws IOException {
        StringBuilder world = new StringBuilder();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.endsWith("/*")) { // every jar in the directory, as the JVM expands it
                List<Path> sorted = new ArrayList<>();
                try (var jars = Files.newDirectoryStream(Path.of(entry.substring(0, entry.length() - 2)), "*.{jar,JAR}")) {
                    jars.forEach(sorted::add);
                }
                Collections.sort(sorted);
                for (Path jar : sorted) {
                    describe(jar, world);
                }
            } else {
                describe(Path.of(entry), world);
            }
        }
        world.append(Files.readSymbolicLink(Path.of("/proc/self/ns/net"))).append('\n');
        world.append(Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"))).append('\n');
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Umask:")) {
                world.append(line).append('\n');
            }
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Max open files")) { // the hard limit: a JVM raises its soft one to it as it starts
                world.append("nofile ").append(line.substring("Max open files".length()).trim().split("\\s+")[1])
                        .append('\n');
            }
        }
        return hex(fnv1a64(world.toString()));
    }

    private static void describe(Path p, StringBuilder world) throws IOException {
        world.append(p.toAbsolutePath()).append(' ');
        if (Files.exists(p)) {
            world.append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis());
        }
        world.append('\n');
    }

    /** FNV-1a: enough to tell worlds apart, and nothing a launcher must load a security provider for. */
    private static long fnv1a64(String s) {
        long h = 0xcbf29ce484222325L;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        for (byte x : b) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private static String hex(long v) {
        String s = Long.toHexString(v);
        return "0".repeat(16 - s.length()) + s;
    }
}
