package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The self-contained archive ({@code fsp-VERSION-linux-x86_64.tar.gz}: the distribution with {@code runtime/}) passes
 * the distribution's tests on a PATH with no java and no JAVA_HOME: every program runs on the runtime it ships.
 */
class SelfContainedDistributionIT extends DistributionChecks {

    @BeforeAll
    static void unpack() throws Exception {
        unpack(System.getProperty("fsp.it.selfContained"), false);
    }

    /** The JDK's classes in a class-data archive made at build time; only the security providers it holds. */
    @Test
    void runtimeHoldsItsClassDataAndOnlyItsProviders() throws Exception {
        assertTrue(Files.isRegularFile(home.resolve("runtime/lib/server/classes.jsa")), "the JDK's class-data archive");
        List<String> providers = Files.readAllLines(home.resolve("runtime/conf/security/java.security")).stream()
                .filter(l -> l.startsWith("security.provider.")).toList();
        assertEquals(List.of("security.provider.1=SUN", "security.provider.2=SunRsaSign", "security.provider.3=SunEC",
                "security.provider.4=SunJSSE", "security.provider.5=SunJCE"), providers);
    }

    /**
     * FSP's class-data archive, made by a first run, goes to the user's cache directory (a service's
     * CacheDirectory=), never beside the launcher; later runs use it.
     */
    @Test
    void classDataArchiveGoesToTheCacheNotBesideTheLauncher() throws Exception {
        Path cache = dir.resolve("cache");
        Path state = dir.resolve("cds-relay-state");
        Map<String, String> env = Map.of("FSP_CDS", "on", "XDG_CACHE_HOME", cache.toString());
        Result first = runFromArchive(env, "bin/fsp-relay", "fingerprint", "--state-dir", state.toString());
        assertEquals(0, first.exit(), first.toString());
        List<Path> archives;
        try (Stream<Path> files = Files.walk(cache)) {
            archives = files.filter(f -> f.getFileName().toString().equals("app.jsa")).toList();
        }
        assertEquals(1, archives.size(), "one archive in " + cache + ": " + archives);
        assertEquals("fsp-relay", archives.get(0).getParent().getFileName().toString());
        try (Stream<Path> files = Files.walk(home)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".jsa"))
                    .filter(f -> !f.startsWith(home.resolve("runtime"))).toList(), "archives in the install");
        }
        assertFalse(Files.exists(home.resolve("cds")), "no cds/ beside bin/");
        Result again = runFromArchive(Map.of("FSP_CDS", "on", "CACHE_DIRECTORY", cache.resolve("fsp").toString()),
                "bin/fsp-relay", "fingerprint", "--state-dir", state.toString());
        assertEquals(first.out(), again.out(), again.toString());
        assertFalse(again.err().contains("making a class-data archive"), "made once: " + again);
    }
}
