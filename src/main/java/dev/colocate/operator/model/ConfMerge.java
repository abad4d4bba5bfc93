package dev.colocate.operator.model;

import dev.colocate.operator.model.ConfFile.Line;
import dev.colocate.operator.model.ConfFile.Setting;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Merges a user's configuration file into the one the operator renders: a user setting replaces the rendered one of
 * the same key, unless a {@link Rule} says colocation needs the rendered value; then it is a problem, never a silent
 * override. Empty user values (ACK's samples carry {@code JobCompHost=}) leave the rendered value.
 */
public final class ConfMerge {

    /** What colocate needs of a key; {@link #check} gives the reason a user value breaks it, or null. */
    @FunctionalInterface
    public interface Rule {
        String check(String userValue);
    }

    /** The merged text, and the problems that make it unusable. */
    public record Result(String text, List<String> problems) {
    }

    private ConfMerge() {
    }

    /** The value must be exactly {@code value}. */
    public static Rule exact(String value, String why) {
        return v -> v.equals(value) ? null : "must be " + value + ": " + why;
    }

    /** The comma-separated value must list every one of {@code items}. */
    public static Rule includes(String why, String... items) {
        return v -> {
            Set<String> listed = Arrays.stream(v.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT))
                    .collect(Collectors.toSet());
            List<String> missing = Arrays.stream(items).filter(i -> !listed.contains(i.toLowerCase(Locale.ROOT)))
                    .toList();
            return missing.isEmpty() ? null : "leaves out " + String.join(",", missing) + ": " + why;
        };
    }

    /** The value must pass {@code ok}. */
    public static Rule matching(Predicate<String> ok, String why) {
        return v -> ok.test(v) ? null : why;
    }

    /** The key may not be set at all. */
    public static Rule forbidden(String why) {
        return v -> why;
    }

    /**
     * @param fileName   the file's name, for problems and the header
     * @param header     comment lines that open the file
     * @param rendered   the operator's settings, one per line, in order
     * @param records    rendered lines that follow the settings (NodeName, PartitionName)
     * @param user       the user's file, or null
     * @param rules      by lower-case key
     * @param recordKeys lower-case first keys of lines kept whole (NodeName, PartitionName), not merged by key
     * @param recordRule the problem with a user's record line, or null
     */
    public static Result merge(String fileName, String header, List<Setting> rendered, List<String> records,
            String user, Map<String, Rule> rules, Set<String> recordKeys, Function<Line, String> recordRule) {
        ConfFile.Parsed parsed = ConfFile.parse(fileName, user);
        List<String> problems = new ArrayList<>(parsed.problems());
        Map<String, Setting> merged = new LinkedHashMap<>();
        rendered.forEach(s -> merged.put(s.key().toLowerCase(Locale.ROOT), s));
        List<String> extras = new ArrayList<>();
        for (Line line : parsed.lines()) {
            if (line.include() != null) {
                extras.add("Include " + line.include());
                continue;
            }
            if (recordKeys.contains(line.first().key().toLowerCase(Locale.ROOT))) {
                String problem = recordRule.apply(line);
                if (problem != null) {
                    problems.add(fileName + " line " + line.number() + ": " + problem);
                } else {
                    extras.add(line.text());
                }
                continue;
            }
            for (Setting s : line.settings()) {
                if (s.value().isEmpty()) {
                    continue;
                }
                String key = s.key().toLowerCase(Locale.ROOT);
                Rule rule = rules.get(key);
                String why = rule == null ? null : rule.check(s.value());
                if (why != null) {
                    problems.add(fileName + " line " + line.number() + ": " + s + " " + why);
                } else if (merged.containsKey(key)) {
                    merged.put(key, s);
                } else {
                    extras.add(s.toString());
                }
            }
        }
        StringBuilder out = new StringBuilder(header);
        merged.values().forEach(s -> out.append(s).append('\n'));
        records.forEach(r -> out.append(r).append('\n'));
        if (!extras.isEmpty()) {
            out.append("# from slurmConfigs.filesInConfigMap[\"").append(fileName).append("\"]\n");
            extras.forEach(e -> out.append(e).append('\n'));
        }
        return new Result(out.toString(), List.copyOf(problems));
    }
}
