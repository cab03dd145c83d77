import Foundation

/// One small chart type, drawn on the server as inline SVG: a line (a state over time) or bars
/// (a flow per interval), with a zero-based axis, gridlines, the first, middle and last labels,
/// and a `<title>` on every point for a tooltip without script. Every label is escaped.
package struct SVGChart: Sendable {
    package enum Style: Sendable { case line, bars }

    package struct Point: Sendable {
        package var label: String
        /// `nil` where the metric has no value (a churn rate with nothing active).
        package var value: Double?
        /// The value as the page's table shows it.
        package var text: String
    }

    package var title: String
    package var style: Style
    package var points: [Point]
    package var width = 720.0
    package var height = 240.0

    private let left = 56.0
    private let right = 12.0
    private let top = 12.0
    private let bottom = 28.0

    package init(title: String, style: Style, points: [Point]) {
        self.title = title
        self.style = style
        self.points = points
    }

    /// The scale's top: the largest value rounded up to 1, 2 or 5 times a power of ten.
    package static func niceMaximum(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2.0, 5.0, 10.0] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    package static func axisText(_ value: Double) -> String {
        if value >= 1_000_000 { return String(format: "%gM", (value / 1_000_000 * 100).rounded() / 100) }
        if value >= 10_000 { return String(format: "%gk", (value / 1000 * 10).rounded() / 10) }
        return value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    package var svg: String {
        let values = points.compactMap(\.value)
        let maximum = Self.niceMaximum(values.max() ?? 0)
        let minimum = min(0, values.min() ?? 0)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let span = maximum - minimum
        func y(_ value: Double) -> Double { top + plotHeight * (1 - (value - minimum) / span) }
        let step = plotWidth / Double(max(points.count, 1))
        func x(_ index: Int) -> Double { left + step * (Double(index) + 0.5) }
        let titleText = HTML.escape(title)
        var out = """
            <svg class="chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(titleText)" \
            xmlns="http://www.w3.org/2000/svg"><title>\(titleText)</title>
            """
        for tick in 0...4 {
            let value = minimum + span * Double(tick) / 4
            let lineY = Self.format(y(value))
            out += "<line class=\"grid\" x1=\"\(Self.format(left))\" x2=\"\(Self.format(width - right))\" y1=\"\(lineY)\" y2=\"\(lineY)\"/>"
            out += "<text class=\"axis\" x=\"\(Self.format(left - 6))\" y=\"\(lineY)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
            out += HTML.escape(Self.axisText(value)) + "</text>"
        }
        if !points.isEmpty {
            for index in Set([0, points.count / 2, points.count - 1]).sorted() {
                let anchor = points.count > 1 && index == 0 ? "start" : index == points.count - 1 && index > 0 ? "end" : "middle"
                let labelX = anchor == "start" ? x(index) - min(step / 2, 4) : anchor == "end" ? x(index) + min(step / 2, 4) : x(index)
                out += "<text class=\"axis\" x=\"\(Self.format(labelX))\" y=\"\(Self.format(height - 8))\" text-anchor=\"\(anchor)\">"
                out += HTML.escape(points[index].label) + "</text>"
            }
        }
        switch style {
        case .line:
            let path = points.indices.compactMap { index in
                points[index].value.map { "\(Self.format(x(index))),\(Self.format(y($0)))" }
            }
            if path.count > 1 { out += "<polyline class=\"series\" fill=\"none\" points=\"\(path.joined(separator: " "))\"/>" }
            for (index, point) in points.enumerated() {
                guard let value = point.value else { continue }
                out += "<circle class=\"point\" cx=\"\(Self.format(x(index)))\" cy=\"\(Self.format(y(value)))\" r=\"3\" "
                out += "data-value=\"\(HTML.escape(point.text))\"><title>\(HTML.escape(point.label + ": " + point.text))</title></circle>"
            }
        case .bars:
            let barWidth = max(1, step * 0.7)
            for (index, point) in points.enumerated() {
                guard let value = point.value else { continue }
                let (from, to) = (y(max(value, 0)), y(min(value, 0)))
                out += "<rect class=\"point\" x=\"\(Self.format(x(index) - barWidth / 2))\" y=\"\(Self.format(from))\" "
                out += "width=\"\(Self.format(barWidth))\" height=\"\(Self.format(max(to - from, 0.5)))\" "
                out += "data-value=\"\(HTML.escape(point.text))\"><title>\(HTML.escape(point.label + ": " + point.text))</title></rect>"
            }
        }
        return out + "</svg>"
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
