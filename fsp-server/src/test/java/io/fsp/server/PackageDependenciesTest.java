package io.fsp.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's packages form no cycle, the striping engine knows nothing of FTP, and the FTP core nothing of the FSP
 * extension; read from this module's
 * compiled classes (the cycle rule is every module's; fsp-common's {@code PackageCycleRuleTest} shows that it
 * catches a cycle).
 */
class PackageDependenciesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.fsp.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theStripingEngineUsesNothingOfFtp() {
        assertUses("io.fsp.server.fsp.FretCommand", "io.fsp.server.stripe", "the commands drive the engine");
        noClasses().that().resideInAPackage("io.fsp.server.stripe..")
                .should().dependOnClassesThat().resideInAPackage("io.fsp.server.ftp..")
                .check(classes);
    }

    @Test
    void theFtpCoreUsesNothingOfFsp() {
        assertUses("io.fsp.server.fsp.FspVerbs", "io.fsp.server.ftp", "the extension registers into the FTP core");
        noClasses().that().resideInAPackage("io.fsp.server.ftp..")
                .should().dependOnClassesThat().resideInAnyPackage("io.fsp.server.fsp..", "io.fsp.server.stripe..",
                        "io.fsp.server.select..", "io.fsp.server.collect..", "io.fsp.server.config..", "io.fsp.client..",
                        "io.fsp.relay..", "io.fsp.extension..", "io.fsp.token..", "io.fsp.meridian..")
                .check(classes);
    }

    /** A rule that no class breaks proves little unless the classes it reads use the package meanwhile. */
    private static void assertUses(String className, String packageName, String why) {
        assertTrue(classes.get(className).getDirectDependenciesFromSelf().stream()
                .anyMatch(d -> d.getTargetClass().getPackageName().equals(packageName)), why);
    }
}
