/** `<domain>.evt.created` of a user's named resource (a template, a container registry credential). */
export interface OwnedResourceCreatedEvent {
  id: string;
  ownerId: string;
  name: string;
}

/** `<domain>.evt.deleted` of a user's resource (a template, a credential, a network volume). */
export interface OwnedResourceDeletedEvent {
  id: string;
  ownerId: string;
}
