// Package contacts owns the asset contact directory: the people and
// channels to tell when an asset is faulty, the only source of the
// recipients of a fault notification. It holds the Contact record with its
// validation, the rule of who can receive a notification (Channels), the
// cap of contacts per asset, the organisation isolation (a contact is seen
// through its asset: an asset the caller cannot see has no contacts for
// it, 404) and the store interface. Contacts belong to physical assets; a
// virtual asset reads its parent's and cannot be written. It is plain Go:
// errors name fields, not request paths; the endpoints live in
// contactshttp, docs/contacts.md records the decisions.
package contacts
