package io.fsp.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.fsp.client.collect.Collector;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client's packages depend on each other one way only, and the library knows nothing of the {@code fsp} program
 * (module fsp-cli) that runs it; read from this module's compiled classes (the cycle rule is every module's;
 * fsp-common's {@code PackageCycleRuleTest} shows that it catches a cycle).
 */
class PackageDependenciesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
        assertTrue(classes.contain(Collector.class), "the module's classes were read");
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.fsp.(**)").should().beFreeOfCycles().check(classes);
    }

    /** fsp-server collects with this library (FCOL): neither the commands nor their parser come with it. */
    @Test
    void theLibraryUsesNothingOfTheCommandLine() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.fsp.cli..", "picocli..").check(classes);
    }
}
