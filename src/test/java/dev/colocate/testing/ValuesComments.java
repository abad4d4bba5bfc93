package dev.colocate.testing;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The helm-docs comments of a chart's values.yaml ({@code # -- description}, continued on the following comment
 * lines, before the key it describes), by key path as helm-docs writes it: {@code a.b}, and {@code list[0].key}
 * for a key of a list's first item. An {@code @default -- ...} tail is not part of the description.
 */
public final class ValuesComments {

    private static final Pattern START = Pattern.compile("^(\\s*)(- )?# -- (.*)$");
    private static final Pattern MORE = Pattern.compile("^\\s*# ?(.*)$");
    private static final Pattern KEY = Pattern.compile("^(\\s*)(- )?([A-Za-z0-9_.\"-]+):");

    private record Level(int indent, String path, boolean list) {
    }

    private ValuesComments() {
    }

    /** Description by key path, in the file's order. */
    public static Map<String, String> of(String valuesYaml) {
        Map<String, String> docs = new LinkedHashMap<>();
        Deque<Level> levels = new ArrayDeque<>();
        Map<String, Integer> items = new LinkedHashMap<>();
        StringBuilder comment = null;
        for (String line : valuesYaml.lines().toList()) {
            Matcher start = START.matcher(line);
            if (start.matches()) {
                if (start.group(2) != null) {
                    // "- # -- ..." opens a list item whose first key follows on the next line, indented past the dash
                    openItem(levels, items, start.group(1).length());
                }
                comment = new StringBuilder(start.group(3).strip());
                continue;
            }
            Matcher key = KEY.matcher(line);
            if (key.find()) {
                int indent = key.group(1).length();
                if (key.group(2) != null) {
                    openItem(levels, items, indent);
                    indent += 2;
                }
                // a list item's level stays for the keys at its indent; a key's level goes for its siblings
                while (!levels.isEmpty() && (levels.peek().indent() > indent
                        || levels.peek().indent() == indent && !levels.peek().list())) {
                    levels.pop();
                }
                String parent = levels.isEmpty() ? "" : levels.peek().path() + ".";
                String path = parent + key.group(3);
                levels.push(new Level(indent, path, false));
                if (comment != null) {
                    String text = comment.toString();
                    int at = text.indexOf("@default --");
                    docs.put(path, (at < 0 ? text : text.substring(0, at)).strip());
                }
                comment = null;
                continue;
            }
            Matcher more = MORE.matcher(line);
            if (comment != null && more.matches()) {
                comment.append(' ').append(more.group(1).strip());
            } else if (!line.isBlank()) {
                comment = null;
            }
        }
        return docs;
    }

    /** A list item at {@code dashIndent}: its keys sit at dashIndent + 2, under the list's path with [n]. */
    private static void openItem(Deque<Level> levels, Map<String, Integer> items, int dashIndent) {
        while (!levels.isEmpty() && (levels.peek().indent() > dashIndent
                || levels.peek().list() && levels.peek().indent() == dashIndent + 2)) {
            levels.pop();
        }
        String list = levels.isEmpty() ? "" : levels.peek().path();
        int n = items.merge(list, 1, Integer::sum) - 1;
        levels.push(new Level(dashIndent + 2, list + "[" + n + "]", true));
    }

    /** The rows of a helm-docs values table: description by key. */
    public static Map<String, String> readmeTable(String readme) {
        Map<String, String> rows = new LinkedHashMap<>();
        Pattern row = Pattern.compile("^\\| (\\S+) \\| \\S+ \\| .*? \\| (.*) \\|$");
        for (String line : readme.lines().toList()) {
            Matcher m = row.matcher(line);
            if (m.matches() && !List.of("Key", "-----").contains(m.group(1))) {
                rows.put(m.group(1), m.group(2).strip());
            }
        }
        return rows;
    }
}
