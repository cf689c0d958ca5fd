/** What a workspace's run profiles may be made of. */
export { profileChoices, type Choice, type ProfileChoices } from '../run-profile-choices.js';
