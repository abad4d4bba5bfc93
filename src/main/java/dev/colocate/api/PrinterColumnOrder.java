package dev.colocate.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Build-time CRD post-processor (quarkus.operator-sdk.crd.post-processor): kubectl shows printer columns in CRD order,
 * and the generator sorts them by JSON path, so this puts them back in the order each class declares them.
 */
public class PrinterColumnOrder implements CRDPostProcessor {

    private static final List<Class<?>> KINDS = List.of(GenericNode.class, SlurmCluster.class);

    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
        if (crd instanceof CustomResourceDefinition definition) {
            KINDS.stream()
                    .filter(k -> k.getSimpleName().equals(definition.getSpec().getNames().getKind()))
                    .findFirst()
                    .ifPresent(kind -> definition.getSpec().getVersions().forEach(v -> reorder(v, kind)));
        }
        return crd;
    }

    private static void reorder(CustomResourceDefinitionVersion version, Class<?> kind) {
        List<String> declared = Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
                .map(AdditionalPrinterColumn::name)
                .toList();
        List<CustomResourceColumnDefinition> columns = version.getAdditionalPrinterColumns();
        if (columns != null) {
            columns.sort(Comparator.comparingInt(c -> declared.indexOf(c.getName())));
        }
    }
}
