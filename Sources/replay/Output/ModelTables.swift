import Events
import Projections

/// The read models as the apps would show them, in plain text.
enum ModelTables {
  /// The contacts list: favourites first, then the others, each sorted by name.
  static func contacts(_ list: ContactList) -> String {
    var text = ""
    for section in list.sections {
      text += "\(section.title) (\(section.contacts.count))\n"
      var table = TextTable([
        .init(title: "ID", alignment: .right), .init(title: "NAME", maximumWidth: 32),
        .init(title: "COMPANY", maximumWidth: 32), .init(title: "SMALL IMAGE", maximumWidth: 100),
      ])
      for row in section.contacts {
        table.append([
          row.id.rawValue, row.displayName, row.company ?? "", imageText(row.smallImage),
        ])
      }
      text += section.contacts.isEmpty ? "  (none)\n" : indent(table.render())
      text += "\n"
    }
    return text
  }

  /// One contact's detail: only the rows it has.
  static func contactDetail(_ row: ContactRow) -> String {
    var table = TextTable([.init(title: "FIELD"), .init(title: "VALUE", maximumWidth: 80)])
    table.append(["name", row.displayName])
    table.append(["small image", imageText(row.smallImage)])
    table.append(["large image", imageText(row.largeImage)])
    for detail in row.detail { table.append([detail.label, detail.value]) }
    return table.render()
  }

  static func imageText(_ image: ContactImage) -> String {
    switch image {
    case .url(let url): url
    case .placeholder(let name): "(placeholder: \(name))"
    }
  }

  /// Every state with its zip codes in order.
  static func zipCodes(_ list: ZipCodeList) -> String {
    // Each `states` sorts and copies: made once.
    let states = list.states
    guard !states.isEmpty else { return "(no states)\n" }
    var text = ""
    for state in states {
      text +=
        "\(state.name.rawValue) (\(state.zipCodes.count) zip code\(state.zipCodes.count == 1 ? "" : "s"))\n"
      // Every zip, in order, wrapped: a state's list is what the app shows.
      var line = " "
      for zip in state.zipCodes {
        if line.count + zip.rawValue.count + 1 > 100 {
          text += line + "\n"
          line = " "
        }
        line += " " + zip.rawValue
      }
      if line.count > 1 { text += line + "\n" }
    }
    return text
  }

  /// The field survey's list.
  static func observations(_ list: ObservationList, options: ViewOptions) -> String {
    var table = TextTable([
      .init(title: "ID"), .init(title: "ICON"), .init(title: "TITLE", maximumWidth: 40),
      .init(title: "DATE"),
    ])
    let rows = list.rows(options: options)
    for row in rows {
      table.append([row.id.rawValue, row.icon.name, row.title, row.dateText])
    }
    return "\(ObservationList.listTitle)\n"
      + (rows.isEmpty ? "  (no observations)\n" : indent(table.render()))
  }

  /// One observation's detail.
  static func observationDetail(_ row: ObservationRow) -> String {
    """
    \(ObservationList.detailTitle)
      \(row.title)
      \(row.classification.rawValue) (icons: \(row.icon.fileNames.joined(separator: ", ")))
      \(row.dateText)
      \(row.description)

    """
  }

  /// The zoo's catalogue: inserted animals first (newest first), then imported ones.
  static func animals(_ catalog: AnimalCatalog) -> String {
    var table = TextTable([
      .init(title: "ID"), .init(title: "NAME", maximumWidth: 40),
      .init(title: "LOCATION", maximumWidth: 20),
      .init(title: "PICTURE", maximumWidth: 120),
    ])
    let animals = catalog.animals
    for animal in animals {
      table.append([
        animal.id.rawValue, animal.displayName, animal.location, pictureText(animal.picture),
      ])
    }
    return animals.isEmpty ? "(no animals)\n" : table.render()
  }

  static func pictureText(_ picture: AnimalPicture) -> String {
    switch picture {
    case .local(let path): "local file \(path)"
    case .remote(let url): "remote \(url)"
    case .none: "(no picture)"
    }
  }

  /// Every location with its three nearest others.
  static func locations(_ list: LocationList) -> String {
    var columns: [TextTable.Column] = [.init(title: "NAME", maximumWidth: 30), .init(title: "ID")]
    for rank in 1...LocationList.neighborCount {
      columns.append(.init(title: "NEAREST \(rank) (MILES)", maximumWidth: 40))
    }
    var table = TextTable(columns)
    let listing = list.neighborhood().listing()
    for entry in listing {
      var row = [entry.location.name, entry.location.id.rawValue]
      for rank in 0..<LocationList.neighborCount {
        row.append(rank < entry.nearest.count ? nearbyText(entry.nearest[rank]) : "")
      }
      table.append(row)
    }
    return listing.isEmpty ? "(no locations)\n" : table.render()
  }

  static func nearbyText(_ nearby: NearbyLocation) -> String {
    "\(nearby.name) \(nearby.distanceText)"
  }

  static func indent(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "  " + $0 }
      .joined(separator: "\n")
  }
}
