package io.fsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/** The rule of every module's {@code PackageDependenciesTest}, on fixtures with and without a package cycle. */
class PackageCycleRuleTest {
    @Test
    void twoPackagesThatUseEachOtherFail() {
        JavaClasses cycle = new ClassFileImporter().importPackages("io.fsp.fixture.cycle");
        AssertionError e = assertThrows(AssertionError.class, () -> PackageDependenciesTest.NO_CYCLES.check(cycle));
        assertTrue(e.getMessage().contains("Cycle detected: Slice fixture.cycle.a"), e.getMessage());
        assertTrue(e.getMessage().contains("Slice fixture.cycle.b"), e.getMessage());
    }

    @Test
    void packagesThatDependOneWayPass() {
        JavaClasses line = new ClassFileImporter().importPackages("io.fsp.fixture.line");
        assertEquals(2, line.size(), line.toString());
        PackageDependenciesTest.NO_CYCLES.check(line);
    }
}
