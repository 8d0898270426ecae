/** The module's entry for the rest of the service: the app imports only this. */
export { TranscriptionsModule } from './transcriptions.module';
