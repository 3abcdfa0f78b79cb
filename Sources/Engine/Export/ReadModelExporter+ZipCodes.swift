import Events
import Projections

extension ReadModelExporter {
  /// The states as an XML property list in the documented layout, readable by any property list
  /// reader (`PropertyListDecoder`, `plutil`) and by `replay import states`:
  ///
  ///     <?xml version="1.0" encoding="UTF-8"?>
  ///     <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
  ///     <plist version="1.0">
  ///     <dict>
  ///     	<key>States</key>
  ///     	<array>
  ///     		<dict>
  ///     			<key>Name</key>
  ///     			<string>California</string>
  ///     			<key>ZipCodes</key>
  ///     			<array>
  ///     				<string>90011</string>
  ///     			</array>
  ///     		</dict>
  ///     	</array>
  ///     </dict>
  ///     </plist>
  ///
  /// States come in the read model's order (`ZipCodeList.states`: by name), zip codes in list
  /// order; a state without zip codes has `<array/>`. Indentation is by tabs, as Apple's
  /// writer does. `&`, `<` and `>` are escaped as entities, and `\r` as `&#13;` (a reader would
  /// turn a raw one into `\n`).
  /// - Throws: `ExportError.unrepresentable` for a character XML 1.0 cannot hold (the control
  ///   characters other than tab, line feed and carriage return, U+FFFE, U+FFFF); state names
  ///   and zip codes never hold one, as the domain rejects them.
  public static func propertyList(_ list: ZipCodeList) throws(ExportError) -> [UInt8] {
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>States</key>

      """
    let states = list.states
    if states.isEmpty {
      text += "\t<array/>\n"
    } else {
      text += "\t<array>\n"
      for state in states {
        text += "\t\t<dict>\n\t\t\t<key>Name</key>\n"
        text += "\t\t\t<string>\(try xmlEscaped(state.name.rawValue))</string>\n"
        text += "\t\t\t<key>ZipCodes</key>\n"
        if state.zipCodes.isEmpty {
          text += "\t\t\t<array/>\n"
        } else {
          text += "\t\t\t<array>\n"
          for zipCode in state.zipCodes {
            text += "\t\t\t\t<string>\(try xmlEscaped(zipCode.rawValue))</string>\n"
          }
          text += "\t\t\t</array>\n"
        }
        text += "\t\t</dict>\n"
      }
      text += "\t</array>\n"
    }
    text += "</dict>\n</plist>\n"
    return Array(text.utf8)
  }

  /// The states in the documented layout as JSON, in the same order as `propertyList(_:)`:
  /// `{"States": [{"Name": "California", "ZipCodes": ["90011", "90002"]}]}`.
  public static func json(_ list: ZipCodeList) -> [UInt8] {
    var writer = JSONWriter(capacity: 4096)
    writer.beginObject()
    writer.key("States")
    writer.beginArray()
    for state in list.states {
      writer.beginObject()
      writer.field("Name", state.name.rawValue)
      writer.key("ZipCodes")
      writer.beginArray()
      for zipCode in state.zipCodes { writer.string(zipCode.rawValue) }
      writer.endArray()
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return PrettyJSON.format(writer.bytes)
  }

  /// `text` as XML character data.
  static func xmlEscaped(_ text: String) throws(ExportError) -> String {
    try TextEscaping.replacing(text) { scalar throws(ExportError) in
      if let reference = TextEscaping.markupReference(scalar) { return reference }
      switch scalar {
      case "\r": return "&#13;"
      case "\t", "\n": return nil
      case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        throw ExportError.unrepresentable(
          format: .plist, value: text, reason: "XML 1.0 cannot hold the character U+\(code)")
      default: return nil
      }
    }
  }
}
