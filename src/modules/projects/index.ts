/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { FirstStartService } from './first-start.service';
export { keyView, ledgerView, projectView } from './operator-views';
export { type LimitSetting, ProjectControlsService } from './project-controls.service';
export { ProjectsModule } from './projects.module';
export { ProjectsService } from './projects.service';
