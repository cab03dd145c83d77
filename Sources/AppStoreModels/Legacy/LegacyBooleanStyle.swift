/// How a boolean is written back: `"true"`/`"false"` (receipts) or `"1"`/`"0"` (renewal info).
enum LegacyBooleanStyle {
    case word
    case digit
}
