// What other modules may use of the tasks module.
export { moveTasks, type MoveTasksInput } from './board/board.service.js';
export { loadTaskRecords, presentTask } from './tasks.presenter.js';
export { default as taskRoutes } from './tasks.routes.js';
