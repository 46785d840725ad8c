package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/launch in a source tree builds what is missing before it runs a program. Launchers started together (a
 * server and its relays, eight clients after a {@code git pull}) must build once, one at a time: Maven run in the
 * same target directories at once broke each other's builds, and every launcher but one failed. Maven and java
 * are stand-ins here (a build that takes a second and says if another one runs beside it, a java that says what
 * it ran): what is tested is the launcher's own logic.
 */
class LauncherIT {

    @Test
    void launchersStartedTogetherBuildOnceAndAllRun(@TempDir Path tree) throws Exception {
        Path launch = Path.of("..", "bin", "launch").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(launch), launch.toString());
        Files.createDirectories(tree.resolve("bin"));
        executable(tree.resolve("bin/launch"), Files.readString(launch));
        Files.writeString(tree.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(tree.resolve("fsp-cli/src/main/java"));
        Files.writeString(tree.resolve("fsp-cli/pom.xml"), "<project/>\n");
        Files.writeString(tree.resolve("fsp-cli/src/main/java/Main.java"), "class Main {}\n");
        Path tools = Files.createDirectories(tree.resolve("tools"));
        executable(tools.resolve("mvn"), """
                #!/bin/bash
                mkdir building 2>/dev/null || { echo "another build is running in this tree" >&2; exit 1; }
                echo "$*" >> builds
                sleep 1
                mkdir -p fsp-cli/target/lib && touch fsp-cli/target/fsp-cli-0.1.0-SNAPSHOT.jar
                rmdir building
                """);
        executable(tools.resolve("java"), """
                #!/bin/bash
                echo "ran ${@: -2}"
                """);

        List<Process> launchers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ProcessBuilder pb = new ProcessBuilder("bash", tree.resolve("bin/launch").toString(), "fsp-cli", "Main", "run" + i)
                    .redirectErrorStream(true);
            pb.environment().remove("JAVA_HOME");
            pb.environment().put("PATH", tools + ":/usr/bin:/bin");
            pb.environment().put("FSP_CDS", "off");
            launchers.add(pb.start());
        }
        for (int i = 0; i < launchers.size(); i++) {
            Process p = launchers.get(i);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "launcher " + i + " ended");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "launcher " + i + ":\n" + out);
            assertTrue(out.contains("ran Main run" + i), "launcher " + i + " ran its program:\n" + out);
        }
        List<String> builds = Files.readAllLines(tree.resolve("builds"));
        assertEquals(1, builds.size(), "builds: " + builds);
        assertTrue(builds.get(0).contains("-pl fsp-cli -am package"), builds.get(0));

        // built and unchanged since: the next launch builds nothing
        ProcessBuilder again = new ProcessBuilder("bash", tree.resolve("bin/launch").toString(), "fsp-cli", "Main", "again")
                .redirectErrorStream(true);
        again.environment().put("PATH", tools + ":/usr/bin:/bin");
        again.environment().put("FSP_CDS", "off");
        Process p = again.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertEquals(1, Files.readAllLines(tree.resolve("builds")).size());
    }

    private static void executable(Path file, String text) throws Exception {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
