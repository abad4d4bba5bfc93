package dev.colocate.sandbox;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * GenericNodes as `kubectl get genericnode` prints them: the CRD's printer columns after NAME, each column as wide
 * as its widest cell plus three spaces, and a JSON column as kubectl renders a JSONPath to an array (keys sorted,
 * no spaces).
 */
public final class GenericNodeTable {

    static final List<String> HEADER = List.of("NAME", "CLUSTERNAME", "ALIAS", "TYPE", "ALLOCATEDRESOURCES");
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

    private GenericNodeTable() {
    }

    /** The table of the given GenericNodes (as the API returns them), sorted by name as kubectl sorts them. */
    public static String of(List<GenericKubernetesResource> genericNodes) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        genericNodes.stream().sorted(Comparator.comparing(gn -> gn.getMetadata().getName()))
                .forEach(gn -> rows.add(List.of(gn.getMetadata().getName(), text(gn, "spec", "clusterName"),
                        text(gn, "spec", "alias"), text(gn, "spec", "type"),
                        json(gn.get("status", "allocatedResources")))));
        int[] widths = new int[HEADER.size()];
        rows.forEach(row -> {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        });
        StringBuilder out = new StringBuilder();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(i == row.size() - 1 ? row.get(i) : String.format("%-" + (widths[i] + 3) + "s", row.get(i)));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static String text(GenericKubernetesResource gn, String... path) {
        Object value = gn.get((Object[]) path);
        return value == null ? "<none>" : value.toString();
    }

    private static String json(Object value) {
        if (value == null) {
            return "<none>";
        }
        try {
            // a round trip through a Map orders every key, as Go's encoding/json does
            return JSON.writeValueAsString(JSON.convertValue(value, Object.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
