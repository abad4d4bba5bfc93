package dev.colocate.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Slurm's hostlist syntax: {@code node[1-3,7],gpu01}. */
public final class Hostlist {

    /** One Slurm node name: what NodeName accepts and what is safe to hand to scontrol as one argument. */
    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    private static final Pattern RANGED = Pattern.compile("([A-Za-z0-9._-]*)\\[([0-9,\\-]+)]([A-Za-z0-9._-]*)");

    private Hostlist() {
    }

    /** Whether the text is a single valid node name. */
    public static boolean isNodeName(String name) {
        return name != null && NODE_NAME.matcher(name).matches();
    }

    /** The node name, or an IllegalArgumentException that says why it is not one. */
    public static String requireNodeName(String name) {
        if (!isNodeName(name)) {
            throw new IllegalArgumentException("not a Slurm node name: '" + name + "' (letters, digits, '.', '_' "
                    + "and '-', at most 63, starting with a letter or digit)");
        }
        return name;
    }

    /** Every node name of a hostlist expression; empty for null, blank or {@code (null)}. */
    public static List<String> expand(String hostlist) {
        List<String> names = new ArrayList<>();
        if (hostlist == null || hostlist.isBlank() || hostlist.equals("(null)")) {
            return names;
        }
        for (String part : splitTopLevel(hostlist, '[', ']')) {
            Matcher m = RANGED.matcher(part);
            if (!m.matches()) {
                names.add(part);
                continue;
            }
            for (String range : m.group(2).split(",")) {
                String[] bounds = range.split("-", 2);
                int width = bounds[0].length();
                long from = Long.parseLong(bounds[0]);
                long to = bounds.length == 2 ? Long.parseLong(bounds[1]) : from;
                for (long i = from; i <= to; i++) {
                    names.add(m.group(1) + String.format("%0" + width + "d", i) + m.group(3));
                }
            }
        }
        return names;
    }

    /** The comma-separated parts of Slurm list syntax, ignoring commas inside {@code open}...{@code close}. */
    static List<String> splitTopLevel(String text, char open, char close) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == open) {
                depth++;
            } else if (c == close) {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i).trim());
                start = i + 1;
            }
        }
        parts.add(text.substring(start).trim());
        return parts;
    }
}
