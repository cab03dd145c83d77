import Foundation

/// Everything one run of `storekeeper doctor` found, in the order it was found, and how it is
/// printed: text for a person, JSON (`--format json`) for a script.
struct DoctorReport: Codable, Sendable {
    var findings: [DoctorFinding]

    /// How many findings of each severity.
    var counts: [String: Int] {
        Dictionary(grouping: findings, by: \.severity.rawValue).mapValues(\.count)
    }

    /// Whether any finding is an error: the command then exits 1.
    var hasErrors: Bool { findings.contains { $0.severity == .error } }

    /// Errors first, then warnings, then what passed; the order found within each.
    var sorted: [DoctorFinding] {
        findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }.map(\.element)
    }

    /// One line per finding, `what to do` indented beneath it, and a summary line.
    var text: String {
        var lines: [String] = []
        for finding in sorted {
            let scope = finding.app.map { "app \($0): " } ?? ""
            lines.append(
                "\(finding.severity.rawValue.uppercased().padding(toLength: 7, withPad: " ", startingAt: 0)) [\(finding.code)] \(scope)\(finding.message)"
            )
            if let todo = finding.todo { lines.append("        what to do: \(todo)") }
        }
        let summary = [DoctorFinding.Severity.error, .warning, .info, .ok].map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }
        lines.append(summary.joined(separator: ", "))
        return lines.joined(separator: "\n") + "\n"
    }

    private enum CodingKeys: String, CodingKey {
        case findings, counts, ok
    }

    init(findings: [DoctorFinding]) {
        self.findings = findings
    }

    init(from decoder: any Decoder) throws {
        findings = try decoder.container(keyedBy: CodingKeys.self).decode([DoctorFinding].self, forKey: .findings)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sorted, forKey: .findings)
        try container.encode(counts, forKey: .counts)
        try container.encode(!hasErrors, forKey: .ok)
    }
}
