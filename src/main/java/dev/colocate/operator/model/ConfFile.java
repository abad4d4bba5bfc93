package dev.colocate.operator.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A Slurm configuration file in the shape slurm.conf, gres.conf, cgroup.conf and slurmdbd.conf share: lines of
 * whitespace-separated {@code Key=Value} pairs, {@code #} comments, and {@code Include <file>} lines.
 */
public final class ConfFile {

    private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    /** One {@code Key=Value} pair; Slurm compares keys without case. */
    public record Setting(String key, String value) {

        public boolean is(String name) {
            return key.equalsIgnoreCase(name);
        }

        @Override
        public String toString() {
            return key + "=" + value;
        }
    }

    /** A line that holds settings (or, when {@code include} is set, an Include line), with its 1-based number. */
    public record Line(int number, List<Setting> settings, String include, String text) {

        public Setting first() {
            return settings.get(0);
        }
    }

    /** The lines of a file, and what in it is not Slurm's syntax. */
    public record Parsed(List<Line> lines, List<String> problems) {
    }

    private ConfFile() {
    }

    /** Parses {@code text}; problems name the file and line, e.g. {@code slurm.conf line 3: "CPUs" is not Key=Value}. */
    public static Parsed parse(String fileName, String text) {
        List<Line> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String[] raw = text == null ? new String[0] : text.split("\r?\n", -1);
        for (int i = 0; i < raw.length; i++) {
            String body = stripComment(raw[i]).trim();
            if (body.isEmpty()) {
                continue;
            }
            int number = i + 1;
            List<String> tokens = tokens(body);
            if (tokens == null) {
                problems.add(fileName + " line " + number + ": a quote is not closed");
                continue;
            }
            if (tokens.get(0).toLowerCase(Locale.ROOT).equals("include")) {
                if (tokens.size() != 2) {
                    problems.add(fileName + " line " + number + ": Include takes one file name");
                } else {
                    lines.add(new Line(number, List.of(), tokens.get(1), body));
                }
                continue;
            }
            List<Setting> settings = new ArrayList<>();
            for (String token : tokens) {
                int eq = token.indexOf('=');
                if (eq <= 0 || !KEY.matcher(token.substring(0, eq)).matches()) {
                    problems.add(fileName + " line " + number + ": \"" + token + "\" is not Key=Value");
                    settings = null;
                    break;
                }
                settings.add(new Setting(token.substring(0, eq), token.substring(eq + 1)));
            }
            if (settings != null) {
                lines.add(new Line(number, List.copyOf(settings), null, body));
            }
        }
        return new Parsed(List.copyOf(lines), List.copyOf(problems));
    }

    private static String stripComment(String line) {
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == '#' && !quoted && (i == 0 || line.charAt(i - 1) != '\\')) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /** Splits on whitespace outside double quotes; null when a quote is left open. */
    private static List<String> tokens(String body) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char c : body.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
                cur.append(c);
            } else if (Character.isWhitespace(c) && !quoted) {
                if (!cur.isEmpty()) {
                    out.add(cur.toString());
                    cur.setLength(0);
                }
            } else {
                cur.append(c);
            }
        }
        if (quoted) {
            return null;
        }
        if (!cur.isEmpty()) {
            out.add(cur.toString());
        }
        return out;
    }
}
